// swift-tools-version:6.0
// The Swift package of mcpkit: the library `McpKit` over the Rust core.
//
// The Rust library `libmcpkit_swift` and the generated sources (Sources/McpKitNative and the
// header in Sources/mcpkit_swiftFFI) come from `scripts/build.sh`, which runs Cargo and the
// workspace's pinned uniffi-bindgen before `swift build`. The library is looked up in the
// Cargo target folder: $MCPKIT_CARGO_TARGET_DIR, else ../../target (debug builds link
// target/debug, release builds target/release).
import PackageDescription

let cargoTarget = Context.environment["MCPKIT_CARGO_TARGET_DIR"] ?? Context.packageDirectory + "/../../target"

func rustLibrary(_ profile: String, _ configuration: BuildConfiguration) -> LinkerSetting {
    let dir = "\(cargoTarget)/\(profile)"
    return .unsafeFlags(["-L", dir, "-Xlinker", "-rpath", "-Xlinker", dir], .when(configuration: configuration))
}

let package = Package(
    name: "McpKit",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "McpKit", targets: ["McpKit"]),
        .executable(name: "calculator-server", targets: ["CalculatorServer"]),
        .executable(name: "calculator-client", targets: ["CalculatorClient"]),
        .executable(name: "conformance-server", targets: ["ConformanceServer"]),
        .executable(name: "conformance-client", targets: ["ConformanceClient"]),
        .executable(name: "echo-server", targets: ["EchoServer"]),
    ],
    targets: [
        .systemLibrary(name: "mcpkit_swiftFFI", path: "Sources/mcpkit_swiftFFI"),
        .target(
            name: "McpKitNative",
            dependencies: ["mcpkit_swiftFFI"],
            // Swift 6.0's compiler crashes on uniffi's async foreign-trait glue in Swift 6 mode.
            swiftSettings: [.swiftLanguageMode(.v5)],
            linkerSettings: [rustLibrary("debug", .debug), rustLibrary("release", .release)]
        ),
        .target(name: "McpKit", dependencies: ["McpKitNative"]),
        .executableTarget(name: "CalculatorServer", dependencies: ["McpKit"], path: "Examples/CalculatorServer"),
        .executableTarget(name: "CalculatorClient", dependencies: ["McpKit"], path: "Examples/CalculatorClient"),
        .executableTarget(name: "ConformanceServer", dependencies: ["McpKit"], path: "Conformance/Server"),
        .executableTarget(name: "ConformanceClient", dependencies: ["McpKit"], path: "Conformance/Client"),
        .executableTarget(name: "EchoServer", dependencies: ["McpKit"], path: "Bench/EchoServer"),
        .testTarget(name: "McpKitTests", dependencies: ["McpKit"]),
    ]
)
