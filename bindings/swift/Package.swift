// swift-tools-version:6.0
// The development manifest of the Swift package of mcpweft: the library `McpWeft` over the Rust
// core, with its examples, fixtures and tests, built against the Rust library of this checkout
// (on Linux, and on a Mac as a path dependency). Apps that add the package by URL get the
// release manifest at the repository's root instead: the same sources over an XCFramework.
//
// The Rust library `libmcpweft_swift` comes from `scripts/build.sh`, which runs Cargo and the
// workspace's pinned uniffi-bindgen before `swift build`; the generated sources
// (Sources/McpWeftNative and the header in Sources/mcpweft_swiftFFI) are committed, and
// build.sh rewrites them when the Rust exports change. The library is looked up in the Cargo
// target folder: $MCPWEFT_CARGO_TARGET_DIR, else ../../target (debug builds link target/debug,
// release builds target/release); the linker flags that say so are allowed only because this
// manifest is never a dependency added by URL.
import PackageDescription

let cargoTarget = Context.environment["MCPWEFT_CARGO_TARGET_DIR"] ?? Context.packageDirectory + "/../../target"

func rustLibrary(_ profile: String, _ configuration: BuildConfiguration) -> LinkerSetting {
    let dir = "\(cargoTarget)/\(profile)"
    return .unsafeFlags(["-L", dir, "-Xlinker", "-rpath", "-Xlinker", dir], .when(configuration: configuration))
}

let package = Package(
    name: "McpWeft",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "McpWeft", targets: ["McpWeft"]),
        .executable(name: "calculator-server", targets: ["CalculatorServer"]),
        .executable(name: "calculator-client", targets: ["CalculatorClient"]),
        .executable(name: "host", targets: ["HostExample"]),
        .executable(name: "conformance-server", targets: ["ConformanceServer"]),
        .executable(name: "conformance-client", targets: ["ConformanceClient"]),
        .executable(name: "echo-server", targets: ["EchoServer"]),
    ],
    targets: [
        .systemLibrary(name: "mcpweft_swiftFFI", path: "Sources/mcpweft_swiftFFI"),
        .target(
            name: "McpWeftNative",
            dependencies: ["mcpweft_swiftFFI"],
            // Swift 6.0's compiler crashes on uniffi's async foreign-trait glue in Swift 6 mode.
            swiftSettings: [.swiftLanguageMode(.v5)],
            linkerSettings: [rustLibrary("debug", .debug), rustLibrary("release", .release)]
        ),
        .target(name: "McpWeft", dependencies: ["McpWeftNative"]),
        .executableTarget(name: "CalculatorServer", dependencies: ["McpWeft"], path: "Examples/CalculatorServer"),
        .executableTarget(name: "CalculatorClient", dependencies: ["McpWeft"], path: "Examples/CalculatorClient"),
        .executableTarget(name: "HostExample", dependencies: ["McpWeft"], path: "Examples/Host"),
        .executableTarget(name: "ConformanceServer", dependencies: ["McpWeft"], path: "Conformance/Server"),
        .executableTarget(name: "ConformanceClient", dependencies: ["McpWeft"], path: "Conformance/Client"),
        .executableTarget(name: "EchoServer", dependencies: ["McpWeft"], path: "Bench/EchoServer"),
        .testTarget(name: "McpWeftTests", dependencies: ["McpWeft"]),
    ]
)
