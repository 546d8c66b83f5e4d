#!/usr/bin/env bash
# Builds the Swift package and its tests (scripts/build.sh) and runs the XCTests. The XCTest
# summary is the last line (Swift Testing is off: every test is an XCTest).
#
#   test.sh [SWIFT_TEST_ARG...]      for example: test.sh --filter ConcurrencyTests
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/build.sh" --build-tests
if command -v swift >/dev/null; then
  runner=()
else
  runner=("$here/run.sh")
fi
"${runner[@]}" swift test --package-path "$(cd "$here/.." && pwd)" --skip-build --disable-swift-testing "$@"
