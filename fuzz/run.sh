#!/usr/bin/env bash
# Runs every fuzz target for a bounded time: FUZZ_SECONDS each (60 by default).
#
# New inputs go to fuzz/corpus/<target> (not committed); the committed seeds in
# fuzz/seeds/<target> are read, never written. Crashes are saved in fuzz/artifacts/<target>.
# cargo-fuzz is installed with `cargo install` when missing; without the nightly toolchain the run
# is skipped with a message, since libFuzzer needs it. With FUZZ_BUILD_ONLY set, the targets are
# built and not run; with FUZZ_DEV set, they are built without optimizations (minutes faster to
# build, slower to run: for short passes). FUZZ_SANITIZER picks cargo fuzz's sanitizer (address
# by default); `none` keeps the coverage-guided fuzzing, which finds panics, hangs and excess
# memory, without AddressSanitizer's instrumentation, which costs a fifth of the build's CPU time:
# make test's short pass uses it. FUZZ_JOBS targets run at a time (1 by default; libFuzzer keeps
# one CPU busy per target): make test runs as many as there are CPUs, and prints each target's
# output when it ends.
set -euo pipefail
cd "$(dirname "$0")"

seconds="${FUZZ_SECONDS:-60}"
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "fuzz: skipped: the nightly Rust toolchain is not installed (rustup toolchain install nightly)"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    cargo +nightly install cargo-fuzz --locked
fi
target_dir="${CARGO_TARGET_DIR:-$PWD/../target}/fuzz"
sanitizer="${FUZZ_SANITIZER:-address}"
profile=(--sanitizer "$sanitizer")
if [ -n "${FUZZ_DEV:-}" ]; then
    profile+=(--dev)
fi

cargo +nightly fuzz build "${profile[@]}" --target-dir "$target_dir"
if [ -n "${FUZZ_BUILD_ONLY:-}" ]; then
    echo "fuzz: targets built"
    exit 0
fi
# Runs one target for FUZZ_SECONDS.
run_target() {
    local target="$1" leaks=1
    echo "fuzz: $target for ${seconds}s"
    mkdir -p "corpus/$target"
    if [ "$target" = python_convert ] || [ "$sanitizer" = none ]; then
        # The embedded interpreter is never finalized, so what it holds at exit is not a leak;
        # without a sanitizer there is no leak check at all.
        leaks=0
    fi
    ASAN_OPTIONS="detect_leaks=$leaks" cargo +nightly fuzz run "${profile[@]}" --target-dir "$target_dir" "$target" \
        "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -detect_leaks="$leaks"
}

mapfile -t targets < <(cargo +nightly fuzz list)
jobs="${FUZZ_JOBS:-1}"
if [ "$jobs" -le 1 ]; then
    for target in "${targets[@]}"; do
        run_target "$target"
    done
    exit 0
fi
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n || true
    done
    {
        if run_target "$target" >"$logs/$target.log" 2>&1; then
            echo 0 >"$logs/$target.rc"
        else
            echo $? >"$logs/$target.rc"
        fi
    } &
done
wait
failed=()
for target in "${targets[@]}"; do
    cat "$logs/$target.log"
    [ "$(cat "$logs/$target.rc" 2>/dev/null)" = 0 ] || failed+=("$target")
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: failed: ${failed[*]}" >&2
    exit 1
fi
