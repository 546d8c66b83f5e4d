#!/usr/bin/env bash
# Runs every test of `make test`: the make targets named as arguments, in order, stopping at the
# first failure, then a short fuzzing pass. A target written `+NAME` starts in the background
# (its own session and log) and the run goes on; `=NAME` waits for it, prints its log and stops
# the run if it failed: make test builds the release packages that way while the tests that
# mostly wait (on servers, clients and interpreters) leave the CPUs free. Two jobs that only
# build, the check of the shipped crates for Windows and macOS (`make check-platforms`) and the
# build of the fuzz targets, run in the background from the start. Their summary lines are
# printed when the steps are done. Each step's duration is printed after it, with how busy the
# CPUs were, so the run shows where its time goes. No step may run longer than
# MAKE_TEST_STEP_LIMIT seconds (default 1800): a test that hangs fails the run with its output
# instead of holding it until CI gives up.
# The background work runs at the lowest priority, so the steps in order take the CPUs first and
# the background fills the time they spend waiting: a session of its own is an autogroup of its
# own to Linux's scheduler, which otherwise shares the CPUs equally between the sessions and left
# the steps a quarter of them. Each step and background job prints the CPU time it used.
set -euo pipefail
cd "$(dirname "$0")/.."
make="${MAKE:-make}"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
log="$target_dir/background-builds.log"
mkdir -p "$target_dir"
limit="${MAKE_TEST_STEP_LIMIT:-1800}"
rm -f "$log.rc" "$log.cpu"

# The background jobs get a session of their own, so that a failing step ends them all. They
# build with the nightly toolchain, without the clippy-driver wrapper of make test's own builds
# (nightly's lints run ahead of stable's).
nightly=(env -u RUSTC_WORKSPACE_WRAPPER -u RUSTFLAGS)

# Runs a command (the arguments after the first) and writes the CPU seconds it and the children
# it waited for used to the file named first. A child's CPU time reaches its parent when the
# parent waits for it: make, cargo and the test runners wait for theirs.
with_cpu=(bash -c '"${@:2}"; status=$?; read -r -a stat </proc/$$/stat; echo $(((stat[15] + stat[16]) / $(getconf CLK_TCK))) >"$1"; exit $status' with-cpu)

# Starts a command in the background, in a session of its own at the lowest priority: `nice`, and
# the session's autogroup where the kernel has them (set from inside the new session).
background() {
    setsid bash -c 'echo 19 >/proc/self/autogroup 2>/dev/null; exec nice -n 19 "$@"' background "$@" &
}

background "${nightly[@]}" "${with_cpu[@]}" "$log.cpu" bash -c '{ "$1" --no-print-directory check-platforms && FUZZ_BUILD_ONLY=1 FUZZ_DEV=1 FUZZ_SANITIZER=none fuzz/run.sh; } >"$2" 2>&1 </dev/null; echo $? >"$2.rc"' \
    background-builds "$make" "$log"
builds=$!

# The CPU time spent so far in clock ticks (the first line of /proc/stat): busy, and in all.
cpu_ticks() {
    local _ user nice system idle iowait rest
    read -r _ user nice system idle iowait rest </proc/stat
    echo "$((user + nice + system)) $((user + nice + system + idle + iowait))"
}

# The background steps: name -> the PID leading its session, and when it started.
declare -A jobs began_at
trap 'kill -- -"$builds" 2>/dev/null || true; for job in "${jobs[@]}"; do kill -- -"$job" 2>/dev/null || true; done' EXIT

start=$SECONDS
for step in "$@"; do
    case "$step" in
        +*)
            name="${step#+}"
            background "${with_cpu[@]}" "$target_dir/step-$name.cpu" timeout -k 30 "$limit" "$make" --no-print-directory "$name" >"$target_dir/step-$name.log" 2>&1 </dev/null
            jobs[$name]=$!
            began_at[$name]=$SECONDS
            echo "make test: $name started in the background"
            continue
            ;;
        =*)
            name="${step#=}"
            waited_from=$SECONDS
            status=0
            wait "${jobs[$name]}" || status=$?
            unset "jobs[$name]"
            cat "$target_dir/step-$name.log"
            if [ "$status" = 124 ]; then
                echo "make test: $name ran longer than $limit s in the background and was stopped" >&2
                exit "$status"
            elif [ "$status" != 0 ]; then
                echo "make test: $name failed in the background (exit $status)" >&2
                exit "$status"
            fi
            echo "make test: $name took $((SECONDS - began_at[$name])) s in the background, $((SECONDS - waited_from)) s of it waited for, $(cat "$target_dir/step-$name.cpu") s of CPU"
            continue
            ;;
    esac
    began=$SECONDS
    read -r busy0 all0 < <(cpu_ticks)
    status=0
    "${with_cpu[@]}" "$target_dir/step.cpu" timeout -k 30 "$limit" "$make" --no-print-directory "$step" || status=$?
    if [ "$status" = 124 ]; then
        echo "make test: $step ran longer than $limit s and was stopped" >&2
        exit "$status"
    elif [ "$status" != 0 ]; then
        exit "$status"
    fi
    read -r busy1 all1 < <(cpu_ticks)
    echo "make test: $step took $((SECONDS - began)) s and $(cat "$target_dir/step.cpu") s of CPU, the CPUs $(((busy1 - busy0) * 100 / (all1 - all0 + 1)))% busy (the background included)"
done

# Bounded: the background jobs take a few minutes once the steps are done.
waited=0
until { [ -f "$log.rc" ] && [ -f "$log.cpu" ]; } || [ "$waited" -ge 3600 ]; do
    sleep 5
    waited=$((waited + 5))
done
if [ "$(cat "$log.rc" 2>/dev/null)" != 0 ]; then
    cat "$log"
    echo "make test: the background builds failed (check-platforms, then the fuzz targets)" >&2
    exit 1
fi
grep -E '^(check-platforms|fuzz):' "$log"
echo "make test: the background builds used $(cat "$log.cpu") s of CPU"
echo "make test: waited $waited s for the background builds"

began=$SECONDS
FUZZ_SECONDS=5 FUZZ_DEV=1 FUZZ_SANITIZER=none FUZZ_JOBS="$(nproc)" "${nightly[@]}" fuzz/run.sh
echo "make test: fuzz-smoke took $((SECONDS - began)) s"
echo "make test: every step passed in $((SECONDS - start)) s"
