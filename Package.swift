// swift-tools-version:6.0
// The release manifest of the Swift package McpWeft, for apps that add it by URL:
//
//     .package(url: "https://github.com/mcpweft/mcpweft", from: "0.1.0")
//
// SwiftPM reads the manifest at the root of the repository a URL names, so it lives here; the
// package itself is bindings/swift (the development manifest for Linux is
// bindings/swift/Package.swift). The Rust half is McpWeftFFI.xcframework.zip, an asset of the
// GitHub release of this version; the Swift half is the committed sources of
// bindings/swift/Sources, compiled by the thin targets below.
//
// Written by bindings/swift/scripts/release-manifest.sh: change its template, not this file.
import PackageDescription

let version = "0.1.0"

let package = Package(
    name: "McpWeft",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [.library(name: "McpWeft", targets: ["McpWeft"])],
    targets: [
        .binaryTarget(
            name: "McpWeftFFI",
            url: "https://github.com/mcpweft/mcpweft/releases/download/v\(version)/McpWeftFFI.xcframework.zip",
            checksum: "0000000000000000000000000000000000000000000000000000000000000000"
        ),
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
        // For `swift test` on a Mac against the XCFramework; apps never build these two.
        .executableTarget(
            name: "CalculatorServer", dependencies: ["McpWeft"], path: "bindings/swift/Examples/CalculatorServer"),
        .testTarget(name: "McpWeftTests", dependencies: ["McpWeft"], path: "bindings/swift/Tests/McpWeftTests"),
    ]
)
