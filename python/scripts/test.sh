#!/usr/bin/env bash
# Builds the mcpweft Python package into a venv and runs its tests and type checks.
#
# Idempotent: scripts/build.sh creates the checkout's .venv (or $VENV) when missing, installs the
# pinned dev requirements quietly and builds the extension with `maturin develop` into the
# shared Cargo target dir. Then this runs ruff, mypy over src/, examples/, conformance/ and
# tests/interop/, stubtest on the native module's stubs, and pytest (tests/interop included:
# the official `mcp` SDK against mcpweft). Ends with pytest's summary line.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
venv="${VENV:-$root/.venv}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

"$here/scripts/build.sh"

cd "$here"
"$venv/bin/ruff" check --quiet src examples tests conformance build_backend
"$venv/bin/ruff" format --quiet --check src examples tests conformance build_backend
"$venv/bin/python" -m mypy --no-error-summary
"$venv/bin/python" -m mypy --no-error-summary conformance tests/interop
if ! log="$("$venv/bin/python" -m mypy.stubtest mcpweft._native 2>&1)"; then
    echo "$log" >&2
    exit 1
fi

exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
