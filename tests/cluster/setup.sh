#!/bin/sh
# Installs what the cluster tests need, redis-server and haproxy (Debian packages), when they are
# missing. Idempotent: it does nothing when both are on the PATH. Exits non-zero, with a message,
# when they cannot be installed; the tests then skip with that message.
set -e
if command -v redis-server >/dev/null 2>&1 && command -v haproxy >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    SUDO=
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "tests/cluster/setup.sh: redis-server and haproxy are missing and this user cannot install packages" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "tests/cluster/setup.sh: redis-server and haproxy are missing and apt-get is not available" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends redis-server haproxy >/dev/null
# The packages start system services where an init system runs; the tests start their own.
command -v redis-server >/dev/null && command -v haproxy >/dev/null
