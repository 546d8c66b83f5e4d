#!/usr/bin/env bash
# Checks that the shipped crates (mcpweft, mcpweft-bridge, the command line mcpweft-cli and the
# Python, Node and Swift bindings, with the Redis feature) compile for Windows x86_64 (MSVC) and
# macOS (arm64, x86_64), from this Linux machine: `cargo +nightly check -Zbuild-std` with the nightly
# toolchain's rust-src, and zig (PyPI `ziglang`, from release/tools.sh) as the C compiler of the
# crates with C code (ring), through release/zig-cc.sh. Nothing is linked: linking needs
# each platform's own SDK, which the release workflow's native runners have.
#
#   release/check-platforms.sh                    (make check-platforms)
#   release/check-platforms.sh -p mcpweft-bench -p mcpweft-conformance --all-targets
#
# Arguments go to cargo: the second line also checks the tests, examples, the benchmark and the
# conformance fixtures (about 8 minutes more on two cores, so not part of make test). Warnings
# of the workspace's crates are errors, since code used on one platform only shows up here as
# unused. CHECK_PLATFORMS_COMMAND=clippy runs the nightly clippy instead of check, at about the
# same cost (clean today; not the default, because nightly's lints run ahead of the stable
# clippy of make lint). Installs rust-src when missing; without the nightly toolchain it prints
# SKIPPED and exits 0. Builds into $CARGO_TARGET_DIR/check-platforms so that host builds are
# left alone. Prints one line per target at the end.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}/check-platforms"
# Rust target, the zig target its C code is compiled for, and the archiver cc-rs expects (lib
# for MSVC). Zig has no MSVC headers, so C code for Windows is compiled against zig's MinGW
# headers: nothing is linked, and the check is of the Rust code.
targets=(
    "x86_64-pc-windows-msvc x86_64-windows-gnu lib"
    "aarch64-apple-darwin aarch64-macos ar"
    "x86_64-apple-darwin x86_64-macos ar"
)
crates=(mcpweft mcpweft-bridge mcpweft-cli mcpweft-python mcpweft-node mcpweft-swift)

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "check-platforms: SKIPPED: the nightly Rust toolchain is not installed (rustup toolchain install nightly)"
    exit 0
fi
if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^rust-src'; then
    echo "check-platforms: installing the nightly toolchain's rust-src" >&2
    if ! rustup component add rust-src --toolchain nightly >&2; then
        echo "check-platforms: could not install rust-src for the nightly toolchain" >&2
        exit 1
    fi
fi
bin="$("$root/release/tools.sh")"
export ZIG="$bin/python -m ziglang"

# One link to the wrapper per tool and target: the wrapper reads both from its name.
links="$target_dir/zig-cc"
mkdir -p "$links"
args=()
for pair in "${targets[@]}"; do
    read -r rust zig ar <<<"$pair"
    var="${rust//-/_}"
    for tool in cc c++ "$ar"; do
        ln -sfn "$root/release/zig-cc.sh" "$links/$tool-$zig"
    done
    export "CC_$var=$links/cc-$zig" "CXX_$var=$links/c++-$zig" "AR_$var=$links/$ar-$zig"
    args+=(--target "$rust")
done
packages=()
for crate in "${crates[@]}"; do
    packages+=(-p "$crate")
done

start=$SECONDS
export RUSTFLAGS="${RUSTFLAGS:-} -D warnings"
if ! cargo +nightly "${CHECK_PLATFORMS_COMMAND:-check}" -Zbuild-std=std,panic_abort --target-dir "$target_dir" "${args[@]}" \
    "${packages[@]}" --features mcpweft/redis,mcpweft-bridge/redis "$@"; then
    echo "check-platforms: failed (see the errors above)" >&2
    exit 1
fi
for pair in "${targets[@]}"; do
    read -r rust _ _ <<<"$pair"
    echo "check-platforms: $rust ok"
done
echo "check-platforms: $((SECONDS - start)) s"
