#!/usr/bin/env bash
# Builds the npm packages of this machine's platform into target/dist/node: the main package
# `mcpweft` and `mcpweft-linux-x64-gnu`, whose addon is a stripped release build linked with zig
# against glibc 2.17 (cargo-zigbuild, from release/tools.sh), so that it loads on any Linux
# x86_64 with glibc 2.17 or newer. Fails if the addon needs a newer glibc symbol.
#
#   node/scripts/dist.sh        (make dist-node)
#
# Honours CARGO_TARGET_DIR (default: the workspace's target folder); the cross build lands in
# its x86_64-unknown-linux-gnu subfolder, shared with the Python wheel's zig build.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
target=x86_64-unknown-linux-gnu
glibc=2.17
platform=linux-x64-gnu
out="$CARGO_TARGET_DIR/dist/node"

fail() {
    echo "dist-node: $*" >&2
    exit 1
}

[ "$(uname -sm)" = "Linux x86_64" ] || fail "builds the $platform package, which needs a Linux x86_64 host (this is $(uname -sm))"
command -v objdump >/dev/null || fail "objdump (binutils) is needed to check the addon's glibc symbols"
bin="$("$root/release/tools.sh")" || fail "release/tools.sh could not make the release tools' venv"
export PATH="$bin:$PATH"
make -s -C "$root" node/node_modules/.package-lock.json >&2

(cd "$root" && cargo zigbuild --release -p mcpweft-node --target "$target.$glibc") ||
    fail "cargo zigbuild --release -p mcpweft-node --target $target.$glibc failed"

staging="$CARGO_TARGET_DIR/$target/napi-dist"
addon="$staging/mcpweft.$platform.node"
mkdir -p "$staging"
strip --strip-all -o "$addon" "$CARGO_TARGET_DIR/$target/release/libmcpweft_node.so"

# The newest glibc symbol version the addon binds, e.g. 2.17.
newest="$(objdump -T "$addon" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n -u | tail -n1)"
[ -n "$newest" ] || fail "objdump found no glibc symbol in $addon"
if [ "$(printf '%s\n%s\n' "$newest" "$glibc" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n1)" != "$glibc" ]; then
    fail "$addon needs GLIBC_$newest, newer than $glibc: $(objdump -T "$addon" | grep "GLIBC_$newest" | head -n3 | tr -s ' ' | tr '\n' ';')"
fi
echo "dist-node: $addon needs glibc $newest at most ($(stat -c %s "$addon") bytes)" >&2

node "$root/node/scripts/pack.mjs" --out "$out" "$addon"
