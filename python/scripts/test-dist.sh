#!/usr/bin/env bash
# Installs the Python wheel of `make dist` the way a user would, on a machine without Rust, and
# serves the official MCP Python SDK's client from it; then checks that the sdist, built without
# Rust, stops at once with the message saying Rust is needed.
#
#   python/scripts/test-dist.sh        (make test-dist runs it after make dist)
#
# In a fresh venv in a temporary folder, with a PATH that holds no cargo or rustc (checked):
#   - `pip install --no-index --only-binary :all: --find-links target/dist/python mcpweft`
#     (no index, nothing built), timed;
#   - `import mcpweft`, timed in fresh processes, from the venv and not the checkout;
#   - the `mcpweft` console script (the native command) lists the tools of
#     python/examples/calculator.py, which the console script serves (`mcpweft run`);
#   - release/smoke.py: the official `mcp` client (pinned in python/requirements-dev.txt,
#     installed from a wheelhouse under .cache/ that this script downloads once) initializes
#     against python/examples/calculator.py run by the venv's Python, lists the tools, calls one;
#   - `pip wheel` of the sdist fails within seconds with the build backend's Rust message.
# $PYTHON picks the interpreter (python3 by default). When Python 3.9 is here ($PYTHON_OLDEST,
# python3.9 or pyenv's), the wheel also installs and imports there, the oldest it supports (the
# official client needs 3.10). Ends with one summary line.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
out="${CARGO_TARGET_DIR:-$root/target}/dist/python"
python="${PYTHON:-python3}"
# The limit of dist.sh: MCPWEFT_DIST_MAX_MB, 10 MB unless make test allows more.
max_mb="${MCPWEFT_DIST_MAX_MB:-10}"
max_wheel_bytes=$((max_mb * 1000 * 1000))

fail() {
    echo "test-dist (python): $*" >&2
    exit 1
}

# The milliseconds since $1, an $EPOCHREALTIME (whose decimal mark follows the locale).
elapsed_ms() {
    local now=$EPOCHREALTIME
    echo $(((10#${now//[.,]/} - 10#${1//[.,]/}) / 1000))
}

wheels=("$out"/mcpweft-*-cp39-abi3-*manylinux_2_17_x86_64.whl)
[ -f "${wheels[0]}" ] || fail "no manylinux_2_17 wheel in $out: run make dist-python first"
wheel="${wheels[0]}"
sdists=("$out"/mcpweft-*.tar.gz)
[ -f "${sdists[0]}" ] || fail "no sdist in $out: run make dist-python first"
sdist="${sdists[0]}"
wheel_bytes="$(stat -c %s "$wheel")"
[ "$wheel_bytes" -lt "$max_wheel_bytes" ] || fail "the wheel weighs $wheel_bytes bytes, $max_mb MB or more"

# The official client and its dependencies, as wheels for this Python, fetched once.
mcp_pin="$(grep '^mcp==' "$here/requirements-dev.txt")"
py_version="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
wheelhouse="$root/.cache/dist-wheelhouse/py$py_version"
if [ "$(cat "$wheelhouse/.pin" 2>/dev/null)" != "$mcp_pin" ]; then
    mkdir -p "$wheelhouse"
    "$python" -m pip download --quiet --disable-pip-version-check --only-binary :all: \
        --dest "$wheelhouse" "$mcp_pin" >&2 ||
        fail "could not download $mcp_pin and its dependencies into $wheelhouse"
    echo "$mcp_pin" >"$wheelhouse/.pin"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The PATH of the tests: without the folders that hold cargo or rustc (~/.cargo/bin).
clean_path=""
IFS=: read -ra dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
    if [ -n "$dir" ] && [ ! -e "$dir/cargo" ] && [ ! -e "$dir/rustc" ]; then
        clean_path="${clean_path:+$clean_path:}$dir"
    fi
done

# Runs a command in $tmp with $venv's bin first on that PATH.
run() {
    (cd "$tmp" && env -u CARGO -u RUSTC -u VIRTUAL_ENV PATH="$venv/bin:$clean_path" "$@")
}

# Makes the venv $venv with the Python $1, installs the wheel into it with no index and nothing
# built, and checks the import and the console script. Sets install_ms and import_ms.
install_wheel() {
    "$1" -m venv "$venv" || fail "could not make a venv with $1"
    for tool in cargo rustc; do
        if run bash -c "command -v $tool" >/dev/null; then
            fail "$tool is still on the test's PATH"
        fi
    done

    local started=$EPOCHREALTIME
    run python -m pip install --quiet --disable-pip-version-check --no-index --only-binary :all: \
        --find-links "$out" mcpweft || fail "pip could not install the wheel from $out with $1"
    install_ms="$(elapsed_ms "$started")"

    # The import, in fresh processes: the best of three (the first also warms the disk cache).
    import_ms=""
    local ms
    for _ in 1 2 3; do
        ms="$(run python -c '
import sys, time
t = time.perf_counter()
import mcpweft
elapsed = time.perf_counter() - t
assert mcpweft.__file__.startswith(sys.prefix), mcpweft.__file__
print(round(elapsed * 1000))
')" || fail "import mcpweft failed in the venv of $1"
        if [ -z "$import_ms" ] || [ "$ms" -lt "$import_ms" ]; then
            import_ms="$ms"
        fi
    done

    local listed
    listed="$(run mcpweft tools -- mcpweft run "$here/examples/calculator.py")" ||
        fail "the mcpweft console script could not list the calculator example's tools with $1"
    grep -q '^add ' <<<"$listed" || fail "mcpweft tools lists no add tool: $listed"
}

# The oldest Python the abi3 wheel supports, when this machine has it: install, import and the
# console script (the official client needs Python 3.10 or newer).
oldest=""
for candidate in "${PYTHON_OLDEST:-}" python3.9 "$HOME/.pyenv/versions/"3.9*/bin/python3; do
    if [ -n "$candidate" ] && "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 9)' 2>/dev/null; then
        oldest="$candidate"
        break
    fi
done
oldest_note="no Python 3.9 here to try"
if [ -n "$oldest" ]; then
    venv="$tmp/venv-oldest"
    install_wheel "$oldest"
    oldest_note="Python 3.9: install $(awk "BEGIN { printf \"%.1f\", $install_ms / 1000 }") s, import $import_ms ms"
fi

venv="$tmp/venv"
install_wheel "$python"
run python -m pip install --quiet --disable-pip-version-check --no-index --find-links "$wheelhouse" \
    "$mcp_pin" || fail "could not install $mcp_pin from $wheelhouse"
run python "$root/release/smoke.py" >&2 || fail "the official client failed against the calculator example"

# The sdist without Rust: the build backend must stop before compiling or downloading anything.
started=$EPOCHREALTIME
if log="$(run python -m pip wheel --no-index --no-deps --no-binary mcpweft --wheel-dir "$tmp/built" \
    "$sdist" 2>&1)"; then
    fail "pip built the sdist without cargo on PATH"
fi
sdist_ms="$(elapsed_ms "$started")"
grep -q "Rust's \`cargo\` is not on PATH" <<<"$log" ||
    fail "building the sdist without cargo did not say Rust is needed: $log"
grep -q "https://rustup.rs" <<<"$log" || fail "the Rust message does not say how to install Rust: $log"
[ "$sdist_ms" -lt 30000 ] || fail "building the sdist without cargo took $sdist_ms ms to fail"

printf 'test-dist (python): wheel %s MB, Python %s: install %s s, import %s ms, console script ok, official client ok; %s; sdist without Rust stops in %s s with the Rust message\n' \
    "$(awk "BEGIN { printf \"%.1f\", $wheel_bytes / 1e6 }")" \
    "$py_version" \
    "$(awk "BEGIN { printf \"%.1f\", $install_ms / 1000 }")" \
    "$import_ms" \
    "$oldest_note" \
    "$(awk "BEGIN { printf \"%.1f\", $sdist_ms / 1000 }")"
