#!/usr/bin/env bash
# Builds the Swift package and its tests (scripts/build.sh), checks the committed generated
# sources and the release manifest, and runs the XCTests. The XCTest summary is the last line
# (Swift Testing is off: every test is an XCTest).
#
#   test.sh [SWIFT_TEST_ARG...]      for example: test.sh --filter ConcurrencyTests
#
# Checks before the tests: the sources build.sh generated are the committed ones (as
# node/native.d.ts is checked), the root Package.swift is the output of release-manifest.sh's
# template, and SwiftPM reads it (`swift package dump-package`).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$(cd "$here/.." && pwd)"
repo="$(cd "$package/../.." && pwd)"
"$here/build.sh" --build-tests
if command -v swift >/dev/null; then
  runner=()
else
  runner=("$here/run.sh")
fi

if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  generated=(bindings/swift/Sources/McpWeftNative/McpWeftNative.swift bindings/swift/Sources/mcpweft_swiftFFI/mcpweft_swiftFFI.h)
  if ! git -C "$repo" ls-files --error-unmatch -- "${generated[@]}" >/dev/null 2>&1 ||
    ! git -C "$repo" diff --exit-code --stat -- "${generated[@]}" >&2; then
    echo "test.sh: the generated Swift sources differ from the committed ones: commit the regenerated files" >&2
    exit 1
  fi
fi
"$here/release-manifest.sh" --check >&2
"${runner[@]}" swift package --package-path "$repo" --scratch-path "$package/.build/release-manifest" dump-package >/dev/null ||
  { echo "test.sh: SwiftPM cannot read the release manifest (Package.swift at the repository's root)" >&2; exit 1; }

"${runner[@]}" swift test --package-path "$package" --skip-build --disable-swift-testing "$@"
