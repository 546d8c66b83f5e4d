#!/usr/bin/env bash
# Writes the release manifest of the Swift package, the Package.swift at the repository's root
# that apps add by URL (`.package(url: "https://github.com/mcpweft/mcpweft", from: "0.1.0")`).
# The manifest below is its one template; the root file is only ever written from it.
#
#   release-manifest.sh VERSION ZIP      the manifest of release VERSION: McpWeftFFI is the
#                                        zip asset of the GitHub release vVERSION, with ZIP's
#                                        SHA-256 as its checksum (printed on stdout)
#   release-manifest.sh --local PATH     the same targets over a local McpWeftFFI.xcframework
#                                        (PATH relative to the repository's root), to test a
#                                        zip on a Mac before it is published
#   release-manifest.sh --unreleased VERSION
#                                        the manifest between releases: VERSION is the next
#                                        one, and its checksum all zeros (no zip exists yet)
#   release-manifest.sh --check          fails unless the root Package.swift is the template
#                                        written with its own version and checksum, and every
#                                        folder it names exists
#
# The release workflow runs the first form with the zip that scripts/xcframework.sh built, then
# commits the manifest and tags that commit (bindings/swift/README.md, "Releases"). The
# checksum is what `swift package compute-checksum ZIP` prints: the SHA-256 of the file, in hex.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
manifest="$repo/Package.swift"

fail() {
  echo "release-manifest.sh: $*" >&2
  exit 1
}

# Prints the SHA-256 of file $1 in hex (sha256sum on Linux, shasum on macOS).
sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d ' ' -f 1
  else
    shasum -a 256 "$1" | cut -d ' ' -f 1
  fi
}

# Prints the manifest for version $1 whose binary target is the Swift expression $2.
render() {
  cat <<EOF
// swift-tools-version:6.0
// The release manifest of the Swift package McpWeft, for apps that add it by URL:
//
//     .package(url: "https://github.com/mcpweft/mcpweft", from: "$1")
//
// SwiftPM reads the manifest at the root of the repository a URL names, so it lives here; the
// package itself is bindings/swift (the development manifest for Linux is
// bindings/swift/Package.swift). The Rust half is McpWeftFFI.xcframework.zip, an asset of the
// GitHub release of this version; the Swift half is the committed sources of
// bindings/swift/Sources, compiled by the thin targets below.
//
// Written by bindings/swift/scripts/release-manifest.sh: change its template, not this file.
import PackageDescription

let version = "$1"

let package = Package(
    name: "McpWeft",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [.library(name: "McpWeft", targets: ["McpWeft"])],
    targets: [
        $2,
        .target(
            name: "McpWeftNative",
            dependencies: ["McpWeftFFI"],
            path: "bindings/swift/Sources/McpWeftNative",
            // Swift 6.0's compiler crashes on uniffi's async foreign-trait glue in Swift 6 mode.
            swiftSettings: [.swiftLanguageMode(.v5)],
            // What the Rust static library needs from the system (security-framework,
            // core-foundation and the libc crate's iconv); Xcode links the library itself.
            linkerSettings: [.linkedFramework("Security"), .linkedFramework("CoreFoundation"), .linkedLibrary("iconv")]
        ),
        .target(name: "McpWeft", dependencies: ["McpWeftNative"], path: "bindings/swift/Sources/McpWeft"),
        // For \`swift test\` on a Mac against the XCFramework; apps never build these two.
        .executableTarget(
            name: "CalculatorServer", dependencies: ["McpWeft"], path: "bindings/swift/Examples/CalculatorServer"),
        .testTarget(name: "McpWeftTests", dependencies: ["McpWeft"], path: "bindings/swift/Tests/McpWeftTests"),
    ]
)
EOF
}

# Prints the binary target of the release: the zip of GitHub release v<version>.
remote_target() {
  printf '%s' ".binaryTarget(
            name: \"McpWeftFFI\",
            url: \"https://github.com/mcpweft/mcpweft/releases/download/v\\(version)/McpWeftFFI.xcframework.zip\",
            checksum: \"$1\"
        )"
}

case "${1:-}" in
  --check)
    [[ -f "$manifest" ]] || fail "no $manifest"
    version="$(sed -n 's/^let version = "\(.*\)"$/\1/p' "$manifest")"
    checksum="$(sed -n 's/^ *checksum: "\([0-9a-f]*\)"$/\1/p' "$manifest")"
    [[ -n "$version" && -n "$checksum" ]] || fail "$manifest names no version or no checksum"
    if ! diff -u "$manifest" <(render "$version" "$(remote_target "$checksum")") >&2; then
      fail "the root Package.swift is not its template's output (run release-manifest.sh VERSION ZIP)"
    fi
    while IFS= read -r path; do
      [[ -d "$repo/$path" ]] || fail "Package.swift names $path, which is not a folder of the repository"
    done < <(sed -n 's/.*path: "\([^"]*\)".*/\1/p' "$manifest")
    echo "release-manifest.sh: Package.swift is the release manifest of $version (checksum $checksum)"
    ;;
  --unreleased)
    [[ $# -eq 2 && "$2" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || fail "usage: release-manifest.sh --unreleased VERSION"
    render "$2" "$(remote_target "$(printf '0%.0s' {1..64})")" >"$manifest"
    ;;
  --local)
    [[ $# -eq 2 ]] || fail "usage: release-manifest.sh --local PATH"
    [[ -d "$repo/$2" ]] || fail "no folder $2 in $repo"
    version="$(sed -n 's/^let version = "\(.*\)"$/\1/p' "$manifest")"
    render "$version" ".binaryTarget(name: \"McpWeftFFI\", path: \"$2\")" >"$manifest"
    echo "release-manifest.sh: Package.swift now uses $2 (restore it before committing)" >&2
    ;;
  -*)
    fail "unknown option $1"
    ;;
  *)
    [[ $# -eq 2 ]] || fail "usage: release-manifest.sh VERSION ZIP | --unreleased VERSION | --local PATH | --check"
    [[ "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || fail "$1 is not a semantic version"
    [[ -f "$2" ]] || fail "no zip at $2"
    checksum="$(sha256 "$2")"
    render "$1" "$(remote_target "$checksum")" >"$manifest"
    echo "$checksum"
    ;;
esac
