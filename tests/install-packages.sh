#!/bin/sh
# Installs the Debian packages named on the command line whose command of the same name is
# missing (redis-server, haproxy, valgrind). Idempotent: it does nothing when every command is on
# the PATH. Exits non-zero, with a message, when they cannot be installed. Callers that run at
# once (parallel tests) take turns: the package manager refuses a second install while one runs.
set -e
missing=
for package in "$@"; do
    command -v "$package" >/dev/null 2>&1 || missing="$missing $package"
done
[ -z "$missing" ] && exit 0
if [ -z "$MCPWEFT_INSTALL_LOCKED" ] && command -v flock >/dev/null 2>&1; then
    # One caller at a time; the next one finds the packages there and does nothing.
    MCPWEFT_INSTALL_LOCKED=1 exec flock "${TMPDIR:-/tmp}/mcpweft-install-packages.lock" "$0" "$@"
fi
if [ "$(id -u)" = 0 ]; then
    SUDO=
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "$0:$missing missing and this user cannot install packages" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "$0:$missing missing and apt-get is not available" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086 # one word per package
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
for package in "$@"; do
    command -v "$package" >/dev/null
done
