// The conformance fixture client, written with McpKit: `conformance-client URL` runs the
// client scenario named in MCP_CONFORMANCE_SCENARIO against the suite's mock server at URL over
// Streamable HTTP, like the Rust fixture client (tests/conformance/rust/src/client.rs). It
// exits 0 when the scenario's job is done; otherwise it says why on stderr and exits 1 (2 for
// a usage error). It gives up after MCP_CONFORMANCE_CLIENT_TIMEOUT seconds (default 20).
import Foundation
import McpKit

let scenarios = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"]

struct ScenarioFailed: Error, CustomStringConvertible {
    let description: String
}

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("conformance-client: \(message)\n".utf8))
    exit(code)
}

/// Accepts a form elicitation with every property that has a usable `default`; declines URL mode.
@Sendable func acceptDefaults(_ params: JSONValue, _: Context) -> JSONValue {
    if params["mode"] == "url" { return ["action": "decline"] }
    var content: [String: JSONValue] = [:]
    for (name, schema) in params["requestedSchema"]?["properties"]?.objectValue ?? [:] {
        guard let value = schema["default"] else { continue }
        switch value {
        case .string, .int, .double, .bool: content[name] = value
        case .array(let items) where items.allSatisfy({ $0.stringValue != nil }): content[name] = value
        default: continue
        }
    }
    return ["action": "accept", "content": .object(content)]
}

func call(_ client: Client, _ name: String, _ arguments: JSONValue = [:]) async throws -> String {
    let names = try await client.listTools().compactMap { $0["name"]?.stringValue }
    guard names.contains(name) else {
        throw ScenarioFailed(description: "the server has no tool `\(name)` (it lists: \(names.joined(separator: ", ")))")
    }
    let result = try await client.callTool(name: name, arguments: arguments)
    if result.isError { throw ScenarioFailed(description: "tool \(name) reported an error: \(result.text)") }
    return "\(name) answered: \(result.text)"
}

func run(_ scenario: String, _ url: String) async throws -> String {
    let client = try await Client.http(url: url, handlers: ClientHandlers(elicitation: { try acceptDefaults($0, $1) }))
    defer { Task { await client.close() } }
    switch scenario {
    case "initialize":
        let info = client.serverInfo
        var summary = "initialized with \(info["serverInfo"]?["name"] ?? nil) at protocol \(client.protocolVersion)"
        if info["capabilities"]?["tools"] != nil {
            summary += "; it lists \(try await client.listTools().count) tool(s)"
        }
        await client.close()
        return summary
    case "tools_call":
        return try await call(client, "add_numbers", ["a": 5, "b": 3])
    case "elicitation-sep1034-client-defaults":
        return try await call(client, "test_client_elicitation_defaults")
    default:
        return try await call(client, "test_reconnection")
    }
}

let environment = ProcessInfo.processInfo.environment
guard CommandLine.arguments.count == 2, let scenario = environment["MCP_CONFORMANCE_SCENARIO"] else {
    fail("usage: MCP_CONFORMANCE_SCENARIO=NAME conformance-client URL", code: 2)
}
guard scenarios.contains(scenario) else {
    fail("\(scenario): unsupported scenario (supported: \(scenarios.joined(separator: ", ")))", code: 1)
}
let limit = Double(environment["MCP_CONFORMANCE_CLIENT_TIMEOUT"] ?? "20") ?? 20
let url = CommandLine.arguments[1]
do {
    let summary = try await withThrowingTaskGroup(of: String.self) { group in
        group.addTask { try await run(scenario, url) }
        group.addTask {
            try await Task.sleep(for: .seconds(limit))
            throw ScenarioFailed(description: "gave up after \(limit) s")
        }
        let first = try await group.next()!
        group.cancelAll()
        return first
    }
    print("conformance-client: \(scenario): \(summary)")
} catch {
    fail("\(scenario): \(error)", code: 1)
}
