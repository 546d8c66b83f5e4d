#!/usr/bin/env bash
# Prepares the Python servers of the benchmark: a venv of their own with the pinned requirements
# (the official SDK's FastMCP among them) and mcpweft's Python package built in release mode.
#
# Idempotent and quiet: creates $BENCH_VENV (default <repo>/target/bench-venv) when missing,
# installs bench/python/requirements.txt, and builds a release wheel of python/ into the shared
# Cargo target dir, installing it only when it changed. A wheel rather than `maturin develop`,
# because develop writes the extension into python/src/mcpweft/, where the debug build of
# python/scripts/test.sh lives. Prints the venv's interpreter on stdout; build logs go to stderr
# only on failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${BENCH_VENV:-$root/target/bench-venv}"
python="${PYTHON:-python3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
wheels="$CARGO_TARGET_DIR/bench-wheels"

if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv" >&2
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2

rm -rf "$wheels"
cd "$root/python"
if ! log="$("$venv/bin/maturin" build --release --quiet --interpreter "$venv/bin/python" --out "$wheels" 2>&1)"; then
    echo "$log" >&2
    exit 1
fi
wheel="$(ls "$wheels"/mcpweft-*.whl)"
stamp="$venv/.mcpweft-wheel.sha256"
sum="$(sha256sum "$wheel" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall "$wheel" >&2
    echo "$sum" >"$stamp"
fi
echo "$venv/bin/python"
