#!/usr/bin/env bash
# Builds the mcpweft Python package into a venv: the shared build step of test.sh and of the
# conformance fixtures (tests/conformance/server-python, client-python).
#
# Idempotent: creates the checkout's .venv (or $VENV) when missing, installs the pinned dev
# requirements quietly, and builds the extension with `maturin develop` into the shared Cargo
# target dir. Prints nothing on success; on failure prints the build log on stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
venv="${VENV:-$root/.venv}"
python="${PYTHON:-python3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv" >&2
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements-dev.txt" >&2

cd "$here"
if ! log="$(VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --quiet 2>&1)"; then
    echo "$log" >&2
    exit 1
fi
