#!/usr/bin/env bash
# Prepares the Node servers of the benchmark: the official TypeScript SDK from this folder's
# lockfile, and mcpweft's Node package (node/) with its addon built in release mode.
#
# Idempotent and quiet: runs `npm ci` here and in node/ when their node_modules are missing or
# older than the lockfile, then builds the addon (node/scripts/build.mjs, cargo's own
# up-to-date check) into the shared Cargo target dir. Prints the Node binary on stdout; build
# logs go to stderr only on failure. The tests' debug addon is rebuilt by `make build-node`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

install() {
    local dir="$1" lock="$2"
    if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/$lock" -nt "$dir/node_modules/.package-lock.json" ]; then
        (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2
    fi
}

install "$here" package-lock.json
install "$root/node" npm-shrinkwrap.json
if ! log="$(node "$root/node/scripts/build.mjs" 2>&1)"; then
    echo "$log" >&2
    exit 1
fi
command -v node
