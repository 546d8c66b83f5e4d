#!/usr/bin/env bash
# Makes the venv of release tools (.cache/release-venv) and prints its bin folder: zig as the
# C compiler and linker for old-glibc and foreign targets (PyPI `ziglang`), cargo-zigbuild,
# maturin and auditwheel, each at a pinned version.
#
#   bin="$(release/tools.sh)"
#
# Idempotent and safe to run from several scripts at once (a lock serializes the installs).
# Prints only the bin folder on stdout; pip's messages go to stderr.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.cache/release-venv"
pins=(ziglang==0.17.1 cargo-zigbuild==0.24.1 maturin==1.16.0 auditwheel==6.8.2)
stamp="$venv/.pins"

mkdir -p "$root/.cache"
exec 9>"$root/.cache/release-venv.lock"
flock 9
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "${pins[*]}" ]; then
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}" >&2
    echo "${pins[*]}" >"$stamp"
fi
echo "$venv/bin"
