import Foundation
import McpWeft
import XCTest

/// The exports a collector stand-in received: the path and body of each request.
private final class Exports: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [(path: String, body: String)] = []

    func add(_ path: String, _ body: String) {
        lock.withLock { received.append((path, body)) }
    }

    var items: [(path: String, body: String)] { lock.withLock { received } }
}

/// OpenTelemetry through the Rust crates: a Swift client and server, both traced by the
/// `.openTelemetry` middleware, export their spans over OTLP/HTTP to a collector stand-in, and
/// the client's trace context reaches the server in the request's `_meta`.
final class TelemetryTests: XCTestCase {
    func testSpansOfAClientAndAServerReachTheCollectorAndTheTraceContextTheServer() async throws {
        let exports = Exports()
        // OTLP/HTTP bodies are protobuf: the span names are in them as bytes.
        let collector = TinyHTTPServer { _, method, path, body in
            if method == "POST" { exports.add(path, body) }
            return (200, "", [:])
        }
        defer { collector.stop() }
        try Telemetry.exportOTLP(
            endpoint: "http://127.0.0.1:\(collector.port)/v1/traces", serviceName: "swift-telemetry-test")

        let server = try makeServer()
        try server.use(.openTelemetry)
        let carried = Recorder<String>()
        server.use { message, next in
            if message.method == "tools/call" {
                await carried.add(message.params?["_meta"]?["traceparent"]?.stringValue ?? "none")
            }
            return try await next(message)
        }
        let client = try await Client.inMemory(server: server, middleware: [.openTelemetry])
        let echoed = try await client.callTool(name: "echo", arguments: ["text": "traced"])
        XCTAssertEqual(echoed.structuredContent, ["text": "traced"])
        await client.close()

        let traceparents = await carried.items
        XCTAssertEqual(traceparents.count, 1)
        let traceparent = try XCTUnwrap(traceparents.first)
        XCTAssertNotNil(
            traceparent.range(of: "^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$", options: .regularExpression),
            "the client's span context reaches the server in _meta: \(traceparent)")

        try Telemetry.flush()
        let received = exports.items
        XCTAssertFalse(received.isEmpty, "the exporter posted to the collector")
        XCTAssertTrue(received.allSatisfy { $0.path == "/v1/traces" }, "\(received.map(\.path))")
        let bodies = received.map(\.body).joined()
        let spans = bodies.components(separatedBy: "tools/call echo").count - 1
        XCTAssertEqual(spans, 2, "the client's span and the server's span of the call are exported")
        XCTAssertTrue(bodies.contains("gen_ai.tool.name"), "with the official SDK's attributes")
        XCTAssertTrue(bodies.contains("swift-telemetry-test"), "under the service's name")
    }
}
