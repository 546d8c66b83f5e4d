#!/usr/bin/env bash
# Runs make test's conformance suites: 0.1.16 (server and client scenarios of the Rust fixtures,
# server scenarios of the Python, Node and Swift ones), then 0.2.0-alpha.12 (revision 2026-07-28
# and the extensions: server and client scenarios of the Rust and Python fixtures, server
# scenarios of the Node and Swift ones).
#
#   run-all.sh        (make test-conformance)
#
# The fixtures are built first, one after the other; then the four runs go at once, since each
# spends most of its time waiting on its servers and clients (one core was idle through the
# suites run in a row). Each run writes its tables to its own log, printed in order when all are
# done, with run.sh's summary lines. Exits 1 when a run failed.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CONFORMANCE_SKIP_INSTALL=1

for fixture in server-rust client-rust server-python client-python server-node server-swift; do
    if ! "$here/$fixture" --build >&2; then
        echo "run-all.sh: $fixture --build failed" >&2
        exit 1
    fi
done

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
# Each run: a title, then the suite (0.1.16, or next for 0.2.0-alpha.12) and run.sh's arguments.
runs=(
    "0.1.16: all rust|0.1.16 all rust"
    "0.1.16: server python node swift|0.1.16 server python node swift"
    "0.2.0-alpha.12: all rust python|next all rust python"
    "0.2.0-alpha.12: server node swift|next server node swift"
)
pids=()
for i in "${!runs[@]}"; do
    read -r suite args <<<"${runs[$i]#*|}"
    environment=(CONFORMANCE_SKIP_BUILD=1)
    if [[ "$suite" == next ]]; then
        environment+=(CONFORMANCE_NEXT=1 "CONFORMANCE_RESULTS=$here/results/next")
    fi
    # shellcheck disable=SC2086 # args holds the words of run.sh's arguments.
    env "${environment[@]}" "$here/run.sh" $args >"$logs/$i" 2>&1 &
    pids+=($!)
done

failed=0
for i in "${!runs[@]}"; do
    wait "${pids[$i]}" || failed=1
done
for i in "${!runs[@]}"; do
    echo
    echo "=== conformance ${runs[$i]%%|*} ==="
    cat "$logs/$i"
done
exit "$failed"
