#!/usr/bin/env bash
# Builds the Swift package: the Rust library libmcpweft_swift (Cargo, on the host), the
# generated sources (the workspace's pinned uniffi-bindgen, in library mode), then SwiftPM.
# The generated sources are committed (the release manifest at the repository's root compiles
# them too): this script rewrites them when the Rust exports changed, and test.sh fails until
# the new ones are committed. Beside them, `.generated-from` holds a digest of what the
# generator reads (the glue's sources and manifest, the generator's, the uniffi versions in
# Cargo.lock, and foundation-essentials.sh, which rewrites the generated imports): when it
# matches, the sources are current and the generator is neither built (about 150 s of CPU from
# a clean checkout) nor run.
#
#   build.sh [--release] [SWIFT_BUILD_ARG...]
#
# SwiftPM runs natively when `swift` is on the PATH (macOS, a Linux with Swift), otherwise in
# the Debian trixie root of toolchain.sh through run.sh. Generated files are replaced only
# when their content changed, so SwiftPM's incremental build stays incremental. Honours
# CARGO_TARGET_DIR (default <repo>/target). Cargo's output goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$(cd "$here/.." && pwd)"
repo="$(cd "$package/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
[[ "$target" == /* ]] || target="$repo/$target"
export CARGO_TARGET_DIR="$target" MCPWEFT_CARGO_TARGET_DIR="$target"

profile=debug
cargo_flags=()
swift_flags=()
if [[ "${1:-}" == --release ]]; then
  shift
  profile=release
  cargo_flags=(--release)
  swift_flags=(-c release)
fi

(cd "$repo" && cargo build -q -p mcpweft-swift "${cargo_flags[@]}") >&2

swift_source="$package/Sources/McpWeftNative/McpWeftNative.swift"
header="$package/Sources/mcpweft_swiftFFI/mcpweft_swiftFFI.h"
stamp="$package/Sources/McpWeftNative/.generated-from"
# Prints the digest of the generator's inputs.
inputs_digest() {
  cd "$repo"
  {
    find bindings/swift/Cargo.toml bindings/swift/src bindings/swift/uniffi-bindgen bindings/swift/scripts/foundation-essentials.sh -type f | LC_ALL=C sort | xargs sha256sum
    grep -A1 '^name = "uniffi' Cargo.lock
  } | sha256sum | cut -d' ' -f1
}
digest="$(inputs_digest)"
if [[ ! -f "$swift_source" || ! -f "$header" || "$(cat "$stamp" 2>/dev/null)" != "$digest" ]]; then
  # The generator is built once (in debug) and then only when Cargo sees a change in it.
  (cd "$repo" && cargo build -q -p uniffi-bindgen) >&2
  library="$target/$profile/libmcpweft_swift.so"
  [[ -f "$library" ]] || library="$target/$profile/libmcpweft_swift.dylib"
  generated="$target/swift-generated"
  rm -rf "$generated"
  (cd "$repo" && "$target/debug/uniffi-bindgen" generate "$library" --language swift --out-dir "$generated" \
    --no-format) >&2
  "$here/foundation-essentials.sh" "$generated/mcpweft_swift.swift"
  # Replaced only when their content changed, so SwiftPM's build stays incremental.
  cmp -s "$generated/mcpweft_swift.swift" "$swift_source" || cp "$generated/mcpweft_swift.swift" "$swift_source"
  cmp -s "$generated/mcpweft_swiftFFI.h" "$header" || cp "$generated/mcpweft_swiftFFI.h" "$header"
  echo "$digest" >"$stamp"
fi

if command -v swift >/dev/null; then
  runner=()
else
  runner=("$here/run.sh")
fi
"${runner[@]}" swift build --package-path "$package" "${swift_flags[@]}" "$@"
