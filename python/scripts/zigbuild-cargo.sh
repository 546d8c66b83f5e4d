#!/usr/bin/env bash
# The `cargo` that python/scripts/dist.sh shows maturin (through a link named `cargo` first on
# PATH): `cargo rustc` for x86_64-unknown-linux-gnu runs as `cargo-zigbuild rustc` for
# x86_64-unknown-linux-gnu.2.17, linked by zig against glibc 2.17; every other command goes to
# the real cargo. Not run by hand.
#
# Why not `maturin --zig`: maturin's built-in zig support writes linker wrappers of its own, and
# cargo counts the linker's path in every crate's fingerprint, so the wheel's build and the npm
# addon's (node/scripts/dist.sh, with the same cargo-zigbuild) rebuilt each other's dependencies
# in target/x86_64-unknown-linux-gnu/release. With one set of wrappers they share them.
#
# Needs MCPWEFT_CARGO_PATH: the PATH without the link's folder, holding cargo and cargo-zigbuild.
set -euo pipefail

export PATH="${MCPWEFT_CARGO_PATH:?the PATH holding the real cargo and cargo-zigbuild}"
if [ "${1-}" = rustc ]; then
    shift
    args=()
    for arg in "$@"; do
        if [ "$arg" = x86_64-unknown-linux-gnu ]; then
            arg=x86_64-unknown-linux-gnu.2.17
        fi
        args+=("$arg")
    done
    exec cargo-zigbuild rustc "${args[@]}"
fi
exec cargo "$@"
