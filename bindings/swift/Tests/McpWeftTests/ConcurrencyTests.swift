import McpWeft
import XCTest

/// Handlers that run at once, and cancellation in both directions.
final class ConcurrencyTests: XCTestCase {
    /// A server whose `sleepy` tool sleeps until it is cancelled, recording that it was.
    private func sleepyServer(_ cancelled: Recorder<String>) throws -> Server {
        let server = try Server(name: "sleepy", version: "1")
        try server.addTool("sleepy") { (_: JSONValue, _: Context) -> JSONValue in
            do {
                try await Task.sleep(for: .seconds(30))
            } catch is CancellationError {
                await cancelled.add("sleepy")
                throw CancellationError()
            }
            return "woke up"
        }
        try server.addTool("echo") { (args: JSONValue, _: Context) in args }
        return server
    }

    func testAsyncHandlersRunConcurrently() async throws {
        let server = try Server(name: "c", version: "1")
        let running = Recorder<Int>()
        try server.addTool("slowEcho") { (args: JSONValue, _: Context) -> JSONValue in
            await running.add(1)
            try await Task.sleep(for: .milliseconds(200))
            return args
        }
        let client = try await Client.inMemory(server: server)
        let clock = ContinuousClock()
        let started = clock.now
        let results = try await withThrowingTaskGroup(of: (Int, CallToolResult).self) { group in
            for i in 0..<20 {
                group.addTask { (i, try await client.callTool(name: "slowEcho", arguments: ["i": .int(i)])) }
            }
            var results: [Int: CallToolResult] = [:]
            for try await (i, result) in group { results[i] = result }
            return results
        }
        let elapsed = clock.now - started
        XCTAssertEqual(results.count, 20)
        for (i, result) in results {
            XCTAssertEqual(result.structuredContent, ["i": .int(i)])
        }
        let ran = await running.items.count
        XCTAssertEqual(ran, 20)
        XCTAssertLessThan(elapsed, .seconds(2), "20 calls of 200 ms each ran one after another")
        await client.close()
    }

    /// A handler that suspends (a yield, child tasks, an actor) goes on, and its value or
    /// error still answers the call.
    func testHandlersThatSuspendGoOnAndAnswer() async throws {
        let server = try Server(name: "s", version: "1")
        let seen = Recorder<Int>()
        try server.addTool("sum") { (args: JSONValue, _: Context) -> JSONValue in
            await Task.yield()
            let n = args["n"]?.intValue ?? 0
            async let low = (0..<n).reduce(0, +)
            async let high = (n..<(2 * n)).reduce(0, +)
            let total = await low + high
            await seen.add(total)
            if total < 0 { throw MCPError.invalidParams("n must not be negative") }
            return .int(total)
        }
        try server.addTool("fail") { (_: JSONValue, _: Context) -> JSONValue in
            await Task.yield()
            throw MCPError.invalidParams("failed after a suspension")
        }
        let client = try await Client.inMemory(server: server)
        for n in [0, 1, 10, 100] {
            let result = try await client.callTool(name: "sum", arguments: ["n": .int(n)])
            XCTAssertEqual(result.text, String((0..<(2 * n)).reduce(0, +)))
        }
        let totals = await seen.items
        XCTAssertEqual(totals, [0, 1, 190, 19900])
        do {
            _ = try await client.callTool(name: "fail", arguments: [:])
            XCTFail("the call succeeded")
        } catch let error as MCPError {
            XCTAssertEqual(error.code, MCPError.Code.invalidParams)
            XCTAssertEqual(error.message, "failed after a suspension")
        }
        await client.close()
    }

    func testCancellingTheSwiftTaskCancelsTheRequest() async throws {
        let cancelled = Recorder<String>()
        let client = try await Client.inMemory(server: sleepyServer(cancelled))
        let call = Task { try await client.callTool(name: "sleepy") }
        try await Task.sleep(for: .milliseconds(200))
        call.cancel()
        switch await call.result {
        case .success(let result): XCTFail("a cancelled call returned \(result)")
        case .failure(let error): XCTAssertTrue(error is CancellationError, "\(error)")
        }
        try await eventually("the server's handler is cancelled") { await cancelled.items == ["sleepy"] }
        let echoed = try await client.callTool(name: "echo", arguments: ["after": true])
        XCTAssertEqual(echoed.structuredContent, ["after": true], "the session goes on")

        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.callTool(name: "echo")
        }
        switch await early.result {
        case .success(let result): XCTFail("a call in a cancelled task returned \(result)")
        case .failure(let error): XCTAssertTrue(error is CancellationError, "\(error)")
        }
        await client.close()
    }

    func testAnMCPCancellationCancelsTheSwiftTask() async throws {
        let cancelled = Recorder<String>()
        let client = try await Client.inMemory(server: sleepyServer(cancelled))
        do {
            _ = try await client.callTool(name: "sleepy", timeout: .milliseconds(200))
            XCTFail("the call must time out")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .timeout)
        }
        try await eventually("the handler's Swift task is cancelled") { await cancelled.items == ["sleepy"] }
        await client.close()
    }

    func testAClosedSessionCancelsRunningHandlers() async throws {
        let cancelled = Recorder<String>()
        let client = try await Client.inMemory(server: sleepyServer(cancelled))
        let call = Task { try await client.callTool(name: "sleepy") }
        try await Task.sleep(for: .milliseconds(200))
        await client.close()
        if case .success(let result) = await call.result {
            XCTFail("a call on a closed connection returned \(result)")
        }
        try await eventually("the handler's Swift task is cancelled") { await cancelled.items == ["sleepy"] }
    }

    /// Handlers that compute without suspending run off the threads that serve the protocol:
    /// four of them busy for a second on one HTTP session hold up neither the core nor another
    /// session.
    func testHandlersThatDoNotSuspendHoldUpNoOtherSession() async throws {
        let server = try Server(name: "busy", version: "1")
        let started = Recorder<Int>()
        try server.addTool("spin") { (_: JSONValue, _: Context) -> JSONValue in
            let clock = ContinuousClock()
            let end = clock.now + .seconds(1)
            var turns = 0
            while clock.now < end { turns += 1 }
            Task { await started.add(turns) }
            return "spun"
        }
        let http = try await server.serveHTTP(port: 0)
        let busy = try await Client.http(url: http.url)
        let other = try await Client.http(url: http.url)
        let spins = Task {
            try await withThrowingTaskGroup(of: CallToolResult.self) { group in
                for _ in 0..<4 { group.addTask { try await busy.callTool(name: "spin", arguments: [:]) } }
                for try await result in group { XCTAssertFalse(result.isError) }
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        let clock = ContinuousClock()
        let asked = clock.now
        let tools = try await other.listTools()
        let waited = clock.now - asked
        XCTAssertEqual(tools.map { $0["name"] }, ["spin"])
        XCTAssertLessThan(waited, .milliseconds(500), "the core waited for busy handlers")
        try await spins.value
        await busy.close()
        await other.close()
        try await http.close()
    }

    /// A result nested deeper than the core reads fails its own call, and the server goes on.
    func testAResultNestedTooDeeplyFailsItsCallOnly() async throws {
        let server = try Server(name: "deep", version: "1")
        try server.addTool("deep") { (args: JSONValue, _: Context) -> JSONValue in
            var value: JSONValue = "bottom"
            for _ in 0..<(args["depth"]?.intValue ?? 0) { value = .array([value]) }
            return ["value": value]
        }
        let client = try await Client.inMemory(server: server)
        let deep = try await client.callTool(name: "deep", arguments: ["depth": 10_000])
        XCTAssertTrue(deep.isError)
        XCTAssertTrue(deep.text.contains("deeper than 128"), deep.text)
        let shallow = try await client.callTool(name: "deep", arguments: ["depth": 100])
        XCTAssertFalse(shallow.isError)
        await client.close()
    }
}
