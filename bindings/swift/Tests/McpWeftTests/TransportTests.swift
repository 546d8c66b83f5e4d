import Foundation
import McpWeft
import XCTest

/// Servers and clients across processes: stdio and Streamable HTTP.
final class TransportTests: XCTestCase {
    func testHTTPServingAndConnecting() async throws {
        let server = try makeServer()
        let http = try await server.serveHTTP(port: 0, options: ["jsonResponse": false])
        XCTAssertTrue(http.url.hasPrefix("http://127.0.0.1:") && http.url.hasSuffix("/mcp"), http.url)
        let client = try await Client.http(url: http.url, headers: ["x-test": "1"], options: ["name": "http-tester", "version": "1"])
        let sum = try await client.callTool(name: "add", arguments: ["a": 1, "b": 1])
        XCTAssertEqual(try sum.decode(Sum.self), Sum(sum: 2))
        await client.close()
        try await http.close()
        try await http.close()
        try await http.wait()
    }

    func testClusterOptionsBecomeTheBridgesClusterSettings() async throws {
        let cluster = ClusterOptions(url: "redis://127.0.0.1:6379/0", prefix: "app", livenessTtlMs: 5000)
        let expected: JSONValue = ["url": "redis://127.0.0.1:6379/0", "prefix": "app", "livenessTtlMs": 5000]
        XCTAssertEqual(try JSONValue(encoding: cluster), expected)
        // The bridge, built with its `redis` feature, takes them (Redis is reached lazily).
        let http = try await makeServer().serveHTTP(port: 0, cluster: cluster)
        try await http.close()
    }

    func testWaitingForAnHTTPServerEndsWithTheTask() async throws {
        let http = try await makeServer().serveHTTP(port: 0)
        let waiting = Task { try await http.wait() }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        if case .success = await waiting.result { XCTFail("wait() returned while the server ran") }
        try await http.close()
    }

    func testASwiftServerOverStdio() async throws {
        let calculator = Paths.product("calculator-server")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: calculator), "\(calculator) is not built")
        let client = try await Client.stdio(command: calculator)
        XCTAssertEqual(client.serverInfo["serverInfo"]?["name"], "calculator")
        let tools = try await client.listTools()
        XCTAssertEqual(tools.compactMap { $0["name"]?.stringValue }, ["add", "divide", "count"])
        let sum = try await client.callTool(name: "add", arguments: ["a": 2, "b": 3])
        XCTAssertEqual(sum.structuredContent, ["sum": 5])
        let divided = try await client.callTool(name: "divide", arguments: ["a": 1, "b": 0])
        XCTAssertTrue(divided.isError)
        XCTAssertEqual(divided.text, "division by zero")
        let pi = try await client.readResource(uri: "calc://constants/pi")
        XCTAssertEqual(pi["contents"]?[0]?["text"], "3.141592653589793")
        await client.close()
    }

    func testTheRustCalculatorOverStdio() async throws {
        let calculator = Paths.cargoTarget + "/debug/examples/calculator_server"
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: calculator), "\(calculator) is not built")
        let progress = Recorder<JSONValue>()
        let client = try await Client.stdio(command: calculator)
        let counted = try await client.callTool(name: "count", arguments: ["n": 3]) { p in Task { await progress.add(p) } }
        XCTAssertEqual(counted.text, "counted to 3")
        try await eventually("three progress notifications") { await progress.items.count == 3 }
        let prompt = try await client.getPrompt(name: "explain", arguments: ["expression": "2+3"])
        XCTAssertEqual(prompt["messages"]?[0]?["content"]?["text"], "Explain step by step how to compute 2+3.")
        await client.close()
    }

    func testOnCloseHearsHowAStdioServerEnded() async throws {
        // Answers initialize, then writes to stderr and exits with code 3.
        let script = """
            read -r line
            printf '%s\\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"crash","version":"1"}}}'
            read -r line
            echo 'fatal: the database is gone' >&2
            exit 3
            """
        let heard = Recorder<JSONValue>()
        let client = try await Client.stdio(
            command: "/bin/sh", arguments: ["-c", script], handlers: ClientHandlers(onClose: { await heard.add($0) }))
        try await eventually("the close is heard") { await heard.items.count == 1 }
        let message = "transport closed: the server process exited with code 3; its stderr ended with:\nfatal: the database is gone"
        let expected: JSONValue = [
            "reason": "disconnected", "message": .string(message), "exitCode": 3, "stderr": "fatal: the database is gone",
        ]
        let items = await heard.items
        XCTAssertEqual(items, [expected])
        do {
            _ = try await client.listTools()
            XCTFail("a call after the server exited succeeded")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .transportClosed)
            XCTAssertEqual(error.message, message)
        }
        await client.close()
    }
}
