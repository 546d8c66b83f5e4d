// The conformance fixture client, written with McpWeft: `conformance-client URL` runs the
// client scenario named in MCP_CONFORMANCE_SCENARIO against the suite's mock server at URL over
// Streamable HTTP, like the Rust fixture client (tests/conformance/rust/src/client.rs). It
// exits 0 when the scenario's job is done; otherwise it says why on stderr and exits 1 (2 for
// a usage error). It gives up after MCP_CONFORMANCE_CLIENT_TIMEOUT seconds (default 20).
//
// An `auth/...` scenario logs in to the protected mock server with the settings of its context
// (MCP_CONFORMANCE_CONTEXT): client credentials for machine clients, a pre-registered client
// when the context names one, and otherwise a user who approves at once.
import Foundation
import McpWeft

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
    var content: JSONObject = [:]
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

/// Stops a URL session at the first redirect, so that its response is the redirect itself.
final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// Approves at once, as the suite's authorization server does: follows the authorization URL
/// without its redirect and returns where it points.
@Sendable func approve(_ authorizationURL: String) async throws -> String {
    guard let url = URL(string: authorizationURL) else {
        throw ScenarioFailed(description: "the authorization URL \(authorizationURL) is not a URL")
    }
    let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    let response: URLResponse? = try await withCheckedThrowingContinuation { continuation in
        session.dataTask(with: url) { _, response, error in
            if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: response) }
        }.resume()
    }
    guard let http = response as? HTTPURLResponse, let location = http.value(forHTTPHeaderField: "Location") else {
        throw ScenarioFailed(description: "the authorization endpoint answered without a redirect")
    }
    return location
}

/// The login settings of an `auth/...` scenario, from its context.
func login(_ scenario: String, _ context: JSONValue) -> ClientAuth {
    let text = { (name: String) in context[name]?.stringValue }
    if scenario.hasPrefix("auth/client-credentials") {
        return ClientAuth(
            clientCredentials: ClientCredentials(
                clientId: text("client_id") ?? "", clientSecret: text("client_secret"),
                privateKeyPem: text("private_key_pem"), algorithm: text("signing_algorithm")))
    }
    return ClientAuth(
        redirectUri: "http://localhost:3000/callback", clientName: "mcpweft-conformance-client",
        clientId: text("client_id"), clientSecret: text("client_secret"),
        clientMetadataUrl: "https://conformance-test.local/client-metadata.json")
}

/// Logs in, lists the protected server's tools and calls one.
func loggedIn(_ scenario: String, _ url: String) async throws -> String {
    let context = try JSONValue(parsing: ProcessInfo.processInfo.environment["MCP_CONFORMANCE_CONTEXT"] ?? "{}")
    let client = try await Client.http(
        url: url, auth: login(scenario, context), handlers: ClientHandlers(authorizer: approve))
    defer { Task { await client.close() } }
    let names = try await client.listTools().compactMap { $0["name"]?.stringValue }
    var summary = "logged in; the server lists \(names.count) tool(s)"
    if let name = names.contains("test-tool") ? "test-tool" : names.first {
        summary += "; " + (try await call(client, name))
    }
    return summary
}

func run(_ scenario: String, _ url: String) async throws -> String {
    if scenario.hasPrefix("auth/") { return try await loggedIn(scenario, url) }
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
guard scenarios.contains(scenario) || scenario.hasPrefix("auth/") else {
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
