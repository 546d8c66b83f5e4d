import Foundation
import McpWeft
import XCTest

/// Collects values from handlers running on any task.
actor Recorder<Value: Sendable> {
    private(set) var items: [Value] = []

    func add(_ item: Value) {
        items.append(item)
    }
}

/// Waits, bounded, until `condition` holds.
func eventually(
    _ what: String, timeout: Duration = .seconds(10), _ condition: @Sendable () async -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    XCTFail("never happened: \(what)")
}

/// The folders the tests find programs in.
enum Paths {
    /// The Swift package.
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// The Cargo target folder.
    static let cargoTarget = ProcessInfo.processInfo.environment["MCPWEFT_CARGO_TARGET_DIR"] ?? package + "/../../target"

    /// A product of this package, built beside the tests.
    static func product(_ name: String) -> String {
        let tests = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return tests.deletingLastPathComponent().appendingPathComponent(name).path
    }
}

struct Operands: Codable, Sendable {
    let a: Double
    let b: Double
}

struct Sum: Codable, Equatable, Sendable {
    let sum: Double
}

struct Oops: Error, CustomStringConvertible {
    var description: String { "it broke" }
}

/// The server most tests talk to.
func makeServer() throws -> Server {
    let server = try Server(name: "swift-test", version: "1.2.3", settings: ["instructions": "Be nice.", "pageSize": 2])
    try server.addTool("echo", description: "Echoes its arguments.") { (args: JSONValue, _: Context) in args }
    let operands: JSONValue = [
        "type": "object", "properties": ["a": ["type": "number"], "b": ["type": "number"]], "required": ["a", "b"],
    ]
    try server.addTool("add", description: "Adds two numbers.", inputSchema: operands) { (o: Operands, _: Context) in
        Sum(sum: o.a + o.b)
    }
    try server.addTool("fail") { (args: JSONValue, _: Context) -> JSONValue in
        if let code = args["code"]?.intValue { throw MCPError(code: code, message: "chosen error", data: ["why": "test"]) }
        throw Oops()
    }
    try server.addTool("slow") { (args: JSONValue, ctx: Context) -> JSONValue in
        try ctx.reportProgress(1, total: 2, message: "half")
        try ctx.log(.info, "working", logger: "slow")
        try await Task.sleep(for: .milliseconds(100))
        return args
    }
    try server.addResource("mem://readme", name: "readme", mimeType: "text/markdown") { _, _ in "# Hi" }
    try server.addResourceTemplate("mem://users/{id}", name: "user") { request, _ in
        guard request.variables["id"] != "0" else { throw MCPError.resourceNotFound(request.uri) }
        return ["id": request.variables["id"] ?? nil]
    }
    try server.addPrompt("greet", description: "Greets.", arguments: [PromptArgument("who", required: true)]) { args, _ in
        .string("Hello \(args["who"] ?? "")")
    }
    server.setCompletion { request, _ in
        .array(["\(request.value)-1", "\(request.value)-\(request.arguments["lang"] ?? "en")"].map(JSONValue.string))
    }
    return server
}
