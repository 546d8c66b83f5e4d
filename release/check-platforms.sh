#!/usr/bin/env bash
# Checks that the shipped crates (mcpweft, mcpweft-otel, mcpweft-bridge, the command line mcpweft-cli and the
# Python, Node and Swift bindings, with the Redis feature) and the benchmark compile for Windows
# x86_64 (MSVC) and macOS arm64, from this Linux machine: `cargo +nightly check` against the two
# targets' prebuilt standard libraries (`rustup target add`), and where rustup cannot add them,
# `-Zbuild-std` with the nightly toolchain's rust-src, which checks the standard library itself
# first (about 53 s of CPU per target). Intel macOS is left to the CI workflow's native macos-13
# runner: none of the workspace's code depends on the architecture (no `target_arch`), so its
# check here repeated arm64's for a third of this script's CPU time (make test's background
# builds used 1,324 s of CPU with it). zig (PyPI
# `ziglang`, from release/tools.sh) is the C compiler of the crates with C code (ring), through
# release/zig-cc.sh. Nothing is linked: linking needs each platform's own SDK, which the release
# workflow's native runners have. Then compares the core's public API with its snapshot,
# core/public-api.txt (PUBLIC_API_UPDATE=1, which `make public-api` sets, rewrites it).
#
#   release/check-platforms.sh                    (make check-platforms)
#   release/check-platforms.sh -p mcpweft-conformance --all-targets
#
# Arguments go to cargo: the second line also checks the tests, examples and the conformance
# fixtures (about 8 minutes more on two cores, so not part of make test). The benchmark is
# checked here rather than by a host check of its own in make test: in one invocation with the
# shipped crates it adds only rmcp and its few crates of its own to each target (its host check
# compiled the whole graph again, with its features, for 204 s of CPU). Warnings
# of the workspace's crates are errors, since code used on one platform only shows up here as
# unused. CHECK_PLATFORMS_COMMAND=clippy runs the nightly clippy instead of check, at about the
# same cost (clean today; not the default, because nightly's lints run ahead of the stable
# clippy of make lint). Installs the targets (or rust-src) when missing; without the nightly
# toolchain it prints SKIPPED and exits 0. Builds into $CARGO_TARGET_DIR/check-platforms so that
# host builds are left alone. Prints one line per target at the end.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}/check-platforms"
# Rust target, the zig target its C code is compiled for, and the archiver cc-rs expects (lib
# for MSVC). Zig has no MSVC headers, so C code for Windows is compiled against zig's MinGW
# headers: nothing is linked, and the check is of the Rust code.
targets=(
    "x86_64-pc-windows-msvc x86_64-windows-gnu lib"
    "aarch64-apple-darwin aarch64-macos ar"
)
crates=(mcpweft mcpweft-otel mcpweft-bridge mcpweft-cli mcpweft-python mcpweft-node mcpweft-swift mcpweft-bench)

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "check-platforms: SKIPPED: the nightly Rust toolchain is not installed (rustup toolchain install nightly)"
    exit 0
fi
rust_targets=()
for pair in "${targets[@]}"; do
    read -r rust _ _ <<<"$pair"
    rust_targets+=("$rust")
done
build_std=()
if ! rustup target add --toolchain nightly "${rust_targets[@]}" >&2; then
    echo "check-platforms: rustup could not add the targets' standard libraries: building them from rust-src" >&2
    build_std=(-Zbuild-std=std,panic_abort)
    if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^rust-src'; then
        echo "check-platforms: installing the nightly toolchain's rust-src" >&2
        if ! rustup component add rust-src --toolchain nightly >&2; then
            echo "check-platforms: could not install rust-src for the nightly toolchain" >&2
            exit 1
        fi
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
if ! cargo +nightly "${CHECK_PLATFORMS_COMMAND:-check}" "${build_std[@]}" --target-dir "$target_dir" "${args[@]}" \
    "${packages[@]}" --features mcpweft/redis,mcpweft-bridge/redis "$@"; then
    echo "check-platforms: failed (see the errors above)" >&2
    exit 1
fi
for pair in "${targets[@]}"; do
    read -r rust _ _ <<<"$pair"
    echo "check-platforms: $rust ok"
done
echo "check-platforms: $((SECONDS - start)) s, against ${build_std:+the standard library built from rust-src}${build_std:-the prebuilt standard libraries}"

# The core's public API, read from the rustdoc JSON of its arm64 macOS build (the dependencies'
# metadata is the check's), against the snapshot core/public-api.txt: a change to it is seen
# here, and accepted with `make public-api`, which rewrites the snapshot.
start=$SECONDS
api_target=aarch64-apple-darwin
if ! cargo +nightly rustdoc -q "${build_std[@]}" --target-dir "$target_dir" --target "$api_target" -p mcpweft \
    --features redis --lib -- -Zunstable-options --output-format json; then
    echo "check-platforms: rustdoc could not write mcpweft's JSON (see the errors above)" >&2
    exit 1
fi
if ! cargo build -q --manifest-path "$root/release/public-api/Cargo.toml" --target-dir "$target_dir/public-api-tool"; then
    echo "check-platforms: the public API tool did not build (see the errors above)" >&2
    exit 1
fi
api="$target_dir/public-api.txt"
"$target_dir/public-api-tool/debug/mcpweft-public-api" "$target_dir/$api_target/doc/mcpweft.json" >"$api"
if [ -n "${PUBLIC_API_UPDATE:-}" ]; then
    cp "$api" "$root/core/public-api.txt"
    echo "check-platforms: core/public-api.txt rewritten ($(wc -l <"$api") items)"
elif ! diff -u "$root/core/public-api.txt" "$api"; then
    echo "check-platforms: the public API of mcpweft differs from core/public-api.txt (above): run make public-api and commit the file if the change is meant" >&2
    exit 1
else
    echo "check-platforms: the public API of mcpweft matches core/public-api.txt ($(wc -l <"$api") items), $((SECONDS - start)) s"
fi
