#!/usr/bin/env bash
# Builds McpWeftFFI.xcframework.zip, the Rust half of the Swift package for Apple platforms
# that the release manifest (the root Package.swift) names, and prints its checksum. Runs only
# on a Mac with Xcode (xcodebuild, lipo, strip, the Apple SDKs) and these Rust targets:
# `rustup target add aarch64-apple-darwin x86_64-apple-darwin aarch64-apple-ios
# aarch64-apple-ios-sim x86_64-apple-ios`. The release workflow runs it on a macOS runner;
# `make test` (Linux) does not.
#
#   xcframework.sh [OUT_DIR]        default: bindings/swift/.build/xcframework
#
# OUT_DIR then holds McpWeftFFI.xcframework and McpWeftFFI.xcframework.zip; the last line on
# stdout is the zip's checksum (`swift package compute-checksum`), which
# `release-manifest.sh VERSION ZIP` writes into the manifest. The framework holds one static
# library per platform (macOS and the iOS simulator as universal binaries, iOS for arm64), each
# with the committed header and a module map for the module mcpweft_swiftFFI that the
# committed McpWeftNative.swift imports. The script fails when the sources uniffi-bindgen
# generates from this build differ from the committed ones.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$(cd "$here/.." && pwd)"
repo="$(cd "$package/../.." && pwd)"
out="${1:-$package/.build/xcframework}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
[[ "$target" == /* ]] || target="$repo/$target"
targets=(aarch64-apple-darwin x86_64-apple-darwin aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios)

fail() {
  echo "xcframework.sh: $*" >&2
  exit 1
}

for tool in xcodebuild lipo strip zip; do
  command -v "$tool" >/dev/null || fail "needs $tool (run it on a Mac with Xcode)"
done
# The package's platforms: the Rust code and its C dependencies (cc-rs reads these) target the
# same oldest systems, so the linker never sees objects newer than the app's deployment target.
export MACOSX_DEPLOYMENT_TARGET=13.0 IPHONEOS_DEPLOYMENT_TARGET=16.0

rm -rf "$out/McpWeftFFI.xcframework" "$out/McpWeftFFI.xcframework.zip" "$out/headers" "$out/libs" "$out/generated"
mkdir -p "$out/headers/mcpweft_swiftFFI" "$out/libs"

# The generated sources must be the committed ones (made on Linux by build.sh): uniffi's
# output depends on the exported interface only, so any difference means they are stale.
(cd "$repo" && cargo build -q -p uniffi-bindgen) >&2
(cd "$repo" && cargo build -q -p mcpweft-swift --release --target aarch64-apple-darwin) >&2
"$target/debug/uniffi-bindgen" generate "$target/aarch64-apple-darwin/release/libmcpweft_swift.dylib" \
  --language swift --out-dir "$out/generated" --no-format >&2
if ! cmp -s "$out/generated/mcpweft_swift.swift" "$package/Sources/McpWeftNative/McpWeftNative.swift" ||
  ! cmp -s "$out/generated/mcpweft_swiftFFI.h" "$package/Sources/mcpweft_swiftFFI/mcpweft_swiftFFI.h"; then
  fail "the committed generated sources are stale: run scripts/build.sh and commit them"
fi

# Each static library is built after the dylib above, so that no later build replaces it.
for triple in "${targets[@]}"; do
  (cd "$repo" && cargo rustc -q -p mcpweft-swift --lib --release --target "$triple" --crate-type staticlib) >&2
done

# The module map sits in a folder named after the module, where clang looks for it, so that it
# cannot collide with another framework's Headers/module.modulemap in an app. No `link` line:
# Xcode links the framework's static library itself.
cp "$package/Sources/mcpweft_swiftFFI/mcpweft_swiftFFI.h" "$out/headers/mcpweft_swiftFFI/"
cat >"$out/headers/mcpweft_swiftFFI/module.modulemap" <<'MAP'
module mcpweft_swiftFFI {
    header "mcpweft_swiftFFI.h"
    export *
}
MAP

# Static libraries carry full debug information; apps do not need it from this one.
lib() {
  local path="$target/$1/release/libmcpweft_swift.a"
  strip -S -o "$out/libs/$1.a" "$path"
  echo "$out/libs/$1.a"
}
lipo -create "$(lib aarch64-apple-darwin)" "$(lib x86_64-apple-darwin)" -output "$out/libs/macos.a"
lipo -create "$(lib aarch64-apple-ios-sim)" "$(lib x86_64-apple-ios)" -output "$out/libs/ios-simulator.a"
cp "$(lib aarch64-apple-ios)" "$out/libs/ios.a"

xcodebuild -create-xcframework \
  -library "$out/libs/macos.a" -headers "$out/headers" \
  -library "$out/libs/ios.a" -headers "$out/headers" \
  -library "$out/libs/ios-simulator.a" -headers "$out/headers" \
  -output "$out/McpWeftFFI.xcframework" >&2

# SwiftPM wants the framework at the top of the zip, named as the binary target.
(cd "$out" && zip -q -r -y -X McpWeftFFI.xcframework.zip McpWeftFFI.xcframework)
echo "xcframework.sh: $out/McpWeftFFI.xcframework.zip ($(du -h "$out/McpWeftFFI.xcframework.zip" | cut -f 1))" >&2
if command -v swift >/dev/null; then
  swift package compute-checksum "$out/McpWeftFFI.xcframework.zip"
else
  shasum -a 256 "$out/McpWeftFFI.xcframework.zip" | cut -d ' ' -f 1
fi
