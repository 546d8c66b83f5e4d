#!/usr/bin/env bash
# Runs zig as the C or C++ compiler or the archiver of a foreign target for cc-rs, which calls
# it as CC_<triple>, CXX_<triple> and AR_<triple>. It is called through a link named
# `<tool>-<zig target>` (made by release/check-platforms.sh), for instance
# `cc-x86_64-windows-gnu` or `ar-aarch64-macos`: the tool is `cc`, `c++`, or `ar` or `lib`
# (what cc-rs expects for MSVC targets), and the rest of the name is zig's own target. cc-rs
# adds `--target=<rust triple>`, whose spelling zig does not know: it is dropped, and `-target
# <zig target>` is passed instead. ZIG names the zig command (`python3 -m ziglang` when unset).
set -euo pipefail

name="$(basename "$0")"
tool="${name%%-*}"
target="${name#*-}"
read -r -a zig <<<"${ZIG:-python3 -m ziglang}"
if [ "$tool" != cc ] && [ "$tool" != c++ ]; then
    exec "${zig[@]}" "$tool" "$@"
fi
args=()
for arg in "$@"; do
    case "$arg" in
        --target=*) ;;
        *) args+=("$arg") ;;
    esac
done
exec "${zig[@]}" "$tool" -target "$target" "${args[@]}"
