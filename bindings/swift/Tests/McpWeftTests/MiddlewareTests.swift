import McpWeft
import XCTest

/// Middleware between a Swift server and client: the chain's order, changing a request,
/// answering early, failing with a code, a client's chain around its own calls, cancellation,
/// and the built-in rate limit and cache.
final class MiddlewareTests: XCTestCase {
    /// A middleware that records `<name` and `name>` around every `tools/call`.
    func recording(_ name: String, _ log: Recorder<String>) -> Middleware.Body {
        { message, next in
            if message.method == "tools/call" { await log.add("\(name)>") }
            let outcome = try await next(message)
            if message.method == "tools/call" { await log.add("<\(name)") }
            return outcome
        }
    }

    func testTheChainRunsInOrderAndChangesAnswersOrFailsRequests() async throws {
        let server = try makeServer()
        let log = Recorder<String>()
        let seen = Recorder<MiddlewareMessage>()
        server.use(recording("outer", log))
        try server.use(Middleware(recording("inner", log)))
        server.use { message, next in
            var message = message
            if message.target == "echo" {
                message.params?["arguments"] = ["text": "changed"]
            }
            return try await next(message)
        }
        server.use { message, next in
            if message.method == "tools/call" { await seen.add(message) }
            switch message.target {
            case "secret": throw MCPError(code: -32001, message: "secret is not for you", data: ["why": "a test"])
            case "early": return ["content": [["type": "text", "text": "answered early"]]]
            default: break
            }
            if message.method == "tools/list" {
                return ["tools": [["name": "from-middleware", "inputSchema": ["type": "object"]]]]
            }
            return try await next(message)
        }
        let client = try await Client.inMemory(server: server)

        let echoed = try await client.callTool(name: "echo", arguments: ["text": "original"])
        XCTAssertEqual(echoed.structuredContent, ["text": "changed"])
        let logged = await log.items
        XCTAssertEqual(logged, ["outer>", "inner>", "<inner", "<outer"])
        let messages = await seen.items
        let message = try XCTUnwrap(messages.first)
        XCTAssertEqual(message.method, "tools/call")
        XCTAssertEqual(message.direction, .received)
        XCTAssertEqual(message.role, .server)
        XCTAssertTrue(message.isRequest)
        XCTAssertNotNil(message.id)
        XCTAssertEqual(message.protocolVersion, "2025-11-25")
        XCTAssertEqual(message.params?["arguments"], ["text": "changed"], "an inner middleware sees the change")

        let early = try await client.callTool(name: "early")
        XCTAssertEqual(early.text, "answered early")
        do {
            _ = try await client.callTool(name: "secret")
            XCTFail("the middleware fails the request")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .rpc)
            XCTAssertEqual(error.code, -32001)
            XCTAssertEqual(error.message, "secret is not for you")
            XCTAssertEqual(error.data, ["why": "a test"])
        }
        let tools = try await client.listTools()
        XCTAssertEqual(tools.map { $0["name"] }, ["from-middleware"])
        // The session goes on serving after a refusal.
        let again = try await client.callTool(name: "add", arguments: ["a": 2, "b": 2])
        XCTAssertEqual(again.structuredContent, ["sum": 4])
        await client.close()
    }

    func testAClientChainSeesItsOwnCallsAsSentAndMayAnswerThem() async throws {
        let seen = Recorder<String>()
        let watch = Middleware { message, next in
            await seen.add("\(message.role.rawValue) \(message.direction.rawValue) \(message.method)")
            if message.target == "offline" { return ["content": [["type": "text", "text": "from the client"]]] }
            return try await next(message)
        }
        let client = try await Client.inMemory(server: makeServer(), middleware: [watch])
        let sum = try await client.callTool(name: "add", arguments: ["a": 1, "b": 2])
        XCTAssertEqual(sum.structuredContent, ["sum": 3])
        let offline = try await client.callTool(name: "offline")
        XCTAssertEqual(offline.text, "from the client", "a client's middleware may answer its own call")
        let items = await seen.items
        XCTAssertTrue(items.contains("client sent initialize"), "\(items)")
        XCTAssertEqual(items.filter { $0 == "client sent tools/call" }.count, 2, "\(items)")
        await client.close()
    }

    func testACancelledRequestCancelsTheMiddlewaresTask() async throws {
        let server = try makeServer()
        let outcome = Recorder<String>()
        server.use { message, next in
            guard message.target == "stuck" else { return try await next(message) }
            do {
                try await Task.sleep(for: .seconds(30))
                await outcome.add("slept")
            } catch is CancellationError {
                await outcome.add("cancelled")
                throw CancellationError()
            }
            return try await next(message)
        }
        let client = try await Client.inMemory(server: server)
        do {
            _ = try await client.callTool(name: "stuck", timeout: .milliseconds(200))
            XCTFail("the call times out")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .timeout, "\(error)")
        }
        try await eventually("the middleware's task is cancelled") { await outcome.items == ["cancelled"] }
        await client.close()
    }

    func testTheBuiltInRateLimitRefusesWithRetryAfter() async throws {
        let server = try makeServer()
        try server.use(.timing)
        try server.use(.rateLimit(perSecond: 0.5, burst: 1))
        let client = try await Client.inMemory(server: server)
        let first = try await client.callTool(name: "add", arguments: ["a": 1, "b": 1])
        XCTAssertEqual(first.structuredContent, ["sum": 2])
        do {
            _ = try await client.callTool(name: "add", arguments: ["a": 1, "b": 1])
            XCTFail("the second call is over the limit")
        } catch let error as MCPError {
            XCTAssertEqual(error.code, -32003, "\(error)")
            XCTAssertNotNil(error.data?["retryAfterMs"]?.intValue, "\(error)")
        }
        await client.close()

        XCTAssertThrowsError(try server.use(.rateLimit(perSecond: 0))) { error in
            XCTAssertEqual((error as? MCPError)?.kind, .invalidInput)
            XCTAssertTrue((error as? MCPError)?.message.contains("perSecond") ?? false, "\(error)")
        }
    }

    func testTheBuiltInCacheAnswersARepeatedListWithoutTheServer() async throws {
        let server = try makeServer()
        let lists = Recorder<String>()
        server.use { message, next in
            if message.method == "tools/list" { await lists.add(message.method) }
            return try await next(message)
        }
        let client = try await Client.inMemory(
            server: server, options: ["requestTimeoutMs": 5000],
            middleware: [.cache(defaultTTL: .seconds(60), maxEntries: 16, methods: ["tools/list"])])
        let first = try await client.list("tools")
        let second = try await client.list("tools")
        XCTAssertEqual(first, second)
        let counted = await lists.items
        XCTAssertEqual(counted.count, 1, "the second list is answered by the client's cache")
        await client.close()

        do {
            _ = try await Client.inMemory(server: server, middleware: [.rateLimit(perSecond: 1, burst: -1)])
            XCTFail("bad settings of a client's built-in middleware fail the connection")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .invalidInput, "\(error)")
        }
    }
}
