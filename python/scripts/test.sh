#!/usr/bin/env bash
# Builds the mcpkit Python package into a venv and runs its tests and type checks.
#
# Idempotent: creates /work/main/.venv (or $VENV) when missing, installs the pinned dev
# requirements quietly, builds the extension with `maturin develop` into the shared Cargo
# target dir, then runs pytest, ruff, mypy over src/ and examples/, and stubtest on the
# native module's stubs. Ends with pytest's summary line.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
venv="${VENV:-$root/.venv}"
python="${PYTHON:-python3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements-dev.txt"

cd "$here"
if ! log="$(VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --quiet 2>&1)"; then
    echo "$log" >&2
    exit 1
fi

"$venv/bin/ruff" check --quiet src examples tests
"$venv/bin/ruff" format --quiet --check src examples tests
"$venv/bin/python" -m mypy --no-error-summary
if ! log="$("$venv/bin/python" -m mypy.stubtest mcpkit._native 2>&1)"; then
    echo "$log" >&2
    exit 1
fi

exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
