import Foundation
import McpWeft
import XCTest

/// A server mounted in a host application's HTTP server: the tests play the application,
/// handing requests to the endpoint and reading its streamed answers.
final class HTTPEndpointTests: XCTestCase {
    static let headers: [(name: String, value: String)] = [
        ("host", "127.0.0.1:8080"), ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ]

    /// A server whose `where` tool reports progress and answers the session id it runs in.
    func mountedServer() throws -> Server {
        let server = try Server(name: "mounted", version: "1")
        try server.addTool("where") { (_: JSONValue, ctx: Context) -> JSONValue in
            try ctx.reportProgress(1, total: 2, message: "looking")
            return .string(ctx.sessionID ?? "none")
        }
        return server
    }

    /// POSTs `message` to `endpoint` as the application would, within session `session`.
    func post(
        _ endpoint: HTTPEndpoint, _ message: JSONValue, session: String? = nil,
        headers: [(name: String, value: String)] = HTTPEndpointTests.headers
    ) async throws -> HTTPEndpoint.Response {
        var headers = headers
        if let session {
            headers += [("mcp-session-id", session), ("mcp-protocol-version", "2025-11-25")]
        }
        return try await endpoint.handle(
            .init(method: "POST", path: "/mcp", headers: headers, body: Data(message.jsonText.utf8)))
    }

    /// Reads the whole body, chunk by chunk, and returns the JSON-RPC messages it carries: the
    /// one JSON body, or the `data` of each SSE event.
    func messages(_ response: HTTPEndpoint.Response) async throws -> [JSONValue] {
        var body = Data()
        for try await chunk in response.body {
            body.append(chunk)
        }
        let text = String(decoding: body, as: UTF8.self)
        guard response.header("content-type")?.hasPrefix("text/event-stream") ?? false else {
            return text.isEmpty ? [] : [try JSONValue(parsing: text)]
        }
        // An event without data (the stream's first, for resumption) carries no message.
        let data = text.split(separator: "\n").filter { $0.hasPrefix("data:") }
            .map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespacesAndNewlines) }
        return try data.filter { !$0.isEmpty }.map { try JSONValue(parsing: $0) }
    }

    func testTheApplicationDrivesInitializeAndAToolCallThroughTheEndpoint() async throws {
        let endpoint = try mountedServer().httpEndpoint(path: "/mcp", options: ["jsonResponse": false])
        let initialize: JSONValue = [
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": ["protocolVersion": "2025-11-25", "capabilities": [:], "clientInfo": ["name": "app", "version": "1"]],
        ]
        let opened = try await post(endpoint, initialize)
        XCTAssertEqual(opened.status, 200)
        let session = try XCTUnwrap(opened.header("Mcp-Session-Id"))
        let initialized = try await messages(opened)
        XCTAssertEqual(initialized.first?["id"], 1)
        XCTAssertEqual(initialized.first?["result"]?["serverInfo"]?["name"], "mounted")

        let notified = try await post(endpoint, ["jsonrpc": "2.0", "method": "notifications/initialized"], session: session)
        XCTAssertEqual(notified.status, 202)

        let call: JSONValue = [
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": ["name": "where", "arguments": [:], "_meta": ["progressToken": "p"]],
        ]
        let answered = try await post(endpoint, call, session: session)
        XCTAssertEqual(answered.status, 200)
        XCTAssertEqual(answered.header("content-type")?.hasPrefix("text/event-stream"), true)
        let streamed = try await messages(answered)
        XCTAssertEqual(streamed.map { $0["method"] ?? $0["id"] ?? .null }, ["notifications/progress", 2], "\(streamed)")
        XCTAssertEqual(streamed.first?["params"]?["message"], "looking")
        XCTAssertEqual(streamed.last?["result"]?["content"]?[0]?["text"]?.stringValue, session,
                       "the handler's Context.sessionID is the HTTP session's id")

        let closed = try await endpoint.handle(
            .init(method: "DELETE", path: "/mcp", headers: Self.headers + [("mcp-session-id", session)]))
        XCTAssertTrue((200..<300).contains(closed.status), "\(closed.status)")
        let gone = try await post(endpoint, call, session: session)
        XCTAssertEqual(gone.status, 404, "the deleted session is gone")
    }

    func testAnotherPathIsAnsweredWithTheEndpointsOwnPath() async throws {
        let endpoint = try mountedServer().httpEndpoint(path: "/api/mcp")
        let response = try await endpoint.handle(.init(method: "POST", path: "/mcp", headers: Self.headers, body: Data("{}".utf8)))
        XCTAssertEqual(response.status, 404)
        let error = try await messages(response).first
        XCTAssertTrue(error?["error"]?["message"]?.stringValue?.contains("/api/mcp") ?? false, "\(String(describing: error))")
    }

    func testAProtectedEndpointChecksBearerTokensWithTheVerifier() async throws {
        let server = try Server(name: "protected", version: "1")
        try server.addTool("whoami") { (_: JSONValue, ctx: Context) -> JSONValue in .string(ctx.auth?.subject ?? "nobody") }
        let auth = ServerAuth(resource: "http://127.0.0.1:8080/mcp", authorizationServers: ["http://127.0.0.1:1"])
        let endpoint = try server.httpEndpoint(options: ["jsonResponse": true], auth: auth) { token in
            token == "good" ? AuthInfo(subject: "alice") : nil
        }
        let initialize: JSONValue = [
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": ["protocolVersion": "2025-11-25", "capabilities": [:], "clientInfo": ["name": "app", "version": "1"]],
        ]
        let refused = try await post(endpoint, initialize)
        XCTAssertEqual(refused.status, 401)
        XCTAssertTrue(refused.header("www-authenticate")?.hasPrefix("Bearer") ?? false, "\(refused.headers)")
        let bad = try await post(endpoint, initialize, headers: Self.headers + [("authorization", "Bearer bad")])
        XCTAssertEqual(bad.status, 401)

        let bearer = Self.headers + [("authorization", "Bearer good")]
        let opened = try await post(endpoint, initialize, headers: bearer)
        XCTAssertEqual(opened.status, 200)
        let session = try XCTUnwrap(opened.header("mcp-session-id"))
        let notified = try await post(
            endpoint, ["jsonrpc": "2.0", "method": "notifications/initialized"], session: session, headers: bearer)
        XCTAssertEqual(notified.status, 202)
        let call: JSONValue = ["jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ["name": "whoami"]]
        let answered = try await post(endpoint, call, session: session, headers: bearer)
        let answer = try await messages(answered).first
        XCTAssertEqual(answer?["result"]?["content"]?[0]?["text"], "alice")
    }

    func testOverStdioOrInMemoryAHandlerHasNoSessionID() async throws {
        let client = try await Client.inMemory(server: mountedServer())
        let answer = try await client.callTool(name: "where")
        XCTAssertEqual(answer.text, "none")
        await client.close()
    }
}
