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
  generated=(bindings/swift/Sources/McpWeftNative/McpWeftNative.swift bindings/swift/Sources/mcpweft_swiftFFI/mcpweft_swiftFFI.h
    bindings/swift/Sources/McpWeftNative/.generated-from)
  if ! git -C "$repo" ls-files --error-unmatch -- "${generated[@]}" >/dev/null 2>&1 ||
    ! git -C "$repo" diff --exit-code --stat -- "${generated[@]}" >&2; then
    echo "test.sh: the generated Swift sources differ from the committed ones: commit the regenerated files" >&2
    exit 1
  fi
fi
"$here/release-manifest.sh" --check >&2
"${runner[@]}" swift package --package-path "$repo" --scratch-path "$package/.build/release-manifest" dump-package >/dev/null ||
  { echo "test.sh: SwiftPM cannot read the release manifest (Package.swift at the repository's root)" >&2; exit 1; }

# The host test's servers that the root cannot run itself: the Python calculator over HTTP,
# served from here (the root has no Python of ours), and Node 22 of the conformance suite's
# packages, which the root runs (the reference server over stdio).
python="$repo/.venv/bin/python"
if [[ -x "$python" ]]; then
  port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  "$python" "$repo/python/examples/calculator.py" --http "$port" >/dev/null 2>&1 </dev/null &
  calculator=$!
  trap 'kill "$calculator" 2>/dev/null || true' EXIT
  for _ in $(seq 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  export MCPWEFT_TEST_PYTHON_URL="http://127.0.0.1:$port/mcp"
fi
node="$repo/tests/conformance/node_modules/node/bin/node"
[[ -x "$node" ]] && export MCPWEFT_TEST_NODE="$node"

"${runner[@]}" swift test --package-path "$package" --skip-build --disable-swift-testing "$@"
