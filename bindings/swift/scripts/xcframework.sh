#!/usr/bin/env bash
# Builds McpWeftFFI.xcframework, the Rust half of the Swift package for Apple platforms, and the
# generated Swift sources beside it. Run on a Mac with Xcode and these Rust targets installed
# (`rustup target add aarch64-apple-darwin x86_64-apple-darwin aarch64-apple-ios
# aarch64-apple-ios-sim x86_64-apple-ios`). It is documented in ../README.md and is not part of
# `make test`, which runs on Linux.
#
#   xcframework.sh [OUT_DIR]        default: bindings/swift/.build/xcframework
#
# The result holds one static library per platform (macOS and the iOS simulator as universal
# binaries), each with the generated header and a module map for the module mcpweft_swiftFFI.
# An app then uses `.binaryTarget(name: "mcpweft_swiftFFI", path: ".../McpWeftFFI.xcframework")`
# in place of the package's system-library target and linker settings, and compiles the
# generated McpWeftNative.swift with the McpWeft sources.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$(cd "$here/.." && pwd)"
repo="$(cd "$package/../.." && pwd)"
out="${1:-$package/.build/xcframework}"
target="${CARGO_TARGET_DIR:-$repo/target}"
[[ "$target" == /* ]] || target="$repo/$target"
targets=(aarch64-apple-darwin x86_64-apple-darwin aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios)

command -v xcodebuild >/dev/null || { echo "xcframework.sh: needs Xcode (xcodebuild)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/headers" "$out/libs"

for triple in "${targets[@]}"; do
  (cd "$repo" && cargo rustc -q -p mcpweft-swift --lib --release --target "$triple" --crate-type staticlib)
done

# The sources and the header come from the macOS build, in library mode.
(cd "$repo" && cargo build -q -p uniffi-bindgen)
(cd "$repo" && cargo build -q -p mcpweft-swift --release --target aarch64-apple-darwin)
"$target/debug/uniffi-bindgen" generate "$target/aarch64-apple-darwin/release/libmcpweft_swift.dylib" \
  --language swift --out-dir "$out/generated" --no-format
cp "$out/generated/mcpweft_swiftFFI.h" "$out/headers/"
# No `link` line: Xcode links the framework's static library itself.
cat >"$out/headers/module.modulemap" <<'MAP'
module mcpweft_swiftFFI {
    header "mcpweft_swiftFFI.h"
    export *
}
MAP

lib() { echo "$target/$1/release/libmcpweft_swift.a"; }
lipo -create "$(lib aarch64-apple-darwin)" "$(lib x86_64-apple-darwin)" -output "$out/libs/macos.a"
lipo -create "$(lib aarch64-apple-ios-sim)" "$(lib x86_64-apple-ios)" -output "$out/libs/ios-simulator.a"
cp "$(lib aarch64-apple-ios)" "$out/libs/ios.a"

xcodebuild -create-xcframework \
  -library "$out/libs/macos.a" -headers "$out/headers" \
  -library "$out/libs/ios.a" -headers "$out/headers" \
  -library "$out/libs/ios-simulator.a" -headers "$out/headers" \
  -output "$out/McpWeftFFI.xcframework"
echo "$out/McpWeftFFI.xcframework"
echo "$out/generated/mcpweft_swift.swift (rename it McpWeftNative.swift in your app's copy of the sources)"
