import McpWeft
import XCTest

/// The client's calls work the same against a server of either revision: `ping`, resource
/// subscriptions, the log level and list changes (2026-07-28 has no `ping`,
/// `resources/subscribe` or `logging/setLevel`: the bridge sends `server/discover`, opens a
/// `subscriptions/listen` stream and puts the level in `_meta`); and the bridge alone reads the
/// call options.
final class ClientCallsTests: XCTestCase {
    /// A server with a resource, a tool that logs at every level from `debug` to `error`, and a
    /// spare tool to remove.
    func makeServer() throws -> Server {
        let server = try Server(name: "calls", version: "1")
        try server.addResource("mem://note", name: "note") { _, _ in "hi" }
        try server.addTool("chatty") { (_: JSONValue, ctx: Context) -> JSONValue in
            for level in [LogLevel.debug, .info, .warning, .error] {
                try ctx.log(level, .string(level.rawValue))
            }
            return "logged"
        }
        try server.addTool("spare") { (_: JSONValue, _: Context) -> JSONValue in "" }
        return server
    }

    func pingSubscribeLogAndListChanges(_ version: String) async throws {
        let server = try makeServer()
        let updated = Recorder<String>()
        let levels = Recorder<String>()
        let changed = Recorder<String>()
        let handlers = ClientHandlers(
            logging: { params in await levels.add(params["level"]?.stringValue ?? "") },
            resourceUpdated: { uri in await updated.add(uri) },
            listChanged: { method in await changed.add(method) })
        let client = try await Client.inMemory(
            server: server, options: ["protocolVersion": .string(version)], handlers: handlers)
        XCTAssertEqual(client.protocolVersion, version)
        try await client.ping(timeout: .seconds(5))

        try await client.subscribe(uri: "mem://note")
        server.notifyResourceUpdated("mem://note")
        try await eventually("the resource update arrives") { await updated.items == ["mem://note"] }
        try await client.unsubscribe(uri: "mem://note")

        try await client.setLoggingLevel(.warning)
        let result = try await client.callTool(name: "chatty")
        XCTAssertEqual(result.text, "logged")
        // The logs come in order: any below the level would come before the error.
        try await eventually("the error is logged") { await levels.items.contains("error") }
        let logged = await levels.items
        XCTAssertEqual(logged, ["warning", "error"], version)

        server.notifyResourceUpdated("mem://note")
        XCTAssertTrue(server.removeTool("spare"))
        try await eventually("the list change arrives") { await changed.items == ["notifications/tools/list_changed"] }
        // The update sent after unsubscribing, before the list change, was never heard.
        let heard = await updated.items
        XCTAssertEqual(heard, ["mem://note"], version)
        await client.close()
    }

    func testA2026ClientPingsSubscribesSetsTheLogLevelAndHearsListChanges() async throws {
        try await pingSubscribeLogAndListChanges("2026-07-28")
    }

    func testA2025ClientDoesTheSameThroughTheSameCalls() async throws {
        try await pingSubscribeLogAndListChanges("2025-11-25")
    }

    /// A tool called as a task is followed with `getTask`, `taskResult` and `listTasks`, and
    /// stopped with `cancelTask`.
    func testTasksAreFollowedAndCancelledThroughTheClient() async throws {
        let server = try Server(name: "tasks", version: "1", settings: ["tasks": true])
        let optional: JSONObject = ["execution": ["taskSupport": "optional"]]
        try server.addTool("sum", descriptor: optional) { (o: Operands, _: Context) -> JSONValue in
            try await Task.sleep(for: .milliseconds(50))
            return "\(o.a + o.b)"
        }
        try server.addTool("forever", descriptor: optional) { (_: JSONValue, _: Context) -> JSONValue in
            try await Task.sleep(for: .seconds(60))
            return "late"
        }
        let client = try await Client.inMemory(server: server)
        let created = try await client.callTool(name: "sum", arguments: ["a": 2, "b": 3], task: ["ttl": 60000])
        let id = try XCTUnwrap(created.raw["task"]?["taskId"]?.stringValue, "\(created.raw)")
        let state = try await client.getTask(id, timeout: .seconds(5))
        XCTAssertEqual(state["taskId"]?.stringValue, id)
        XCTAssertTrue(["working", "completed"].contains(state["status"]?.stringValue ?? ""), "\(state)")
        let result = CallToolResult(try await client.taskResult(id))
        XCTAssertEqual(result.text, "5.0")
        XCTAssertFalse(result.isError)
        let done = try await client.getTask(id)
        XCTAssertEqual(done["status"], "completed")

        let running = try await client.callTool(name: "forever", task: ["ttl": 60000])
        let other = try XCTUnwrap(running.raw["task"]?["taskId"]?.stringValue)
        let cancelled = try await client.cancelTask(other)
        XCTAssertEqual(cancelled["status"], "cancelled")
        let listed = try await client.listTasks().compactMap { $0["taskId"]?.stringValue }
        XCTAssertEqual(Set(listed), [id, other])
        do {
            _ = try await client.getTask("no-such-task")
            XCTFail("an unknown task was found")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .rpc)
        }
        await client.close()
    }

    /// Every call takes a time-out, and reads, prompts and completions take `_meta` entries
    /// too, which the handler sees.
    func testCallsTakeATimeOutAndMeta() async throws {
        let server = try Server(name: "options", version: "1")
        try server.addTool("forever") { (_: JSONValue, _: Context) -> JSONValue in
            try await Task.sleep(for: .seconds(60))
            return "late"
        }
        try server.addResource("mem://trace", name: "trace") { _, ctx in ctx.meta?["trace"] ?? "none" }
        try server.addPrompt("trace", arguments: [PromptArgument("x")]) { _, ctx in
            .string(ctx.meta?["trace"]?.stringValue ?? "none")
        }
        server.setCompletion { _, ctx in [ctx.meta?["trace"] ?? "none"] }
        let client = try await Client.inMemory(server: server)
        do {
            _ = try await client.callTool(name: "forever", timeout: .milliseconds(100))
            XCTFail("the call outlived its time-out")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .timeout)
        }
        let read = try await client.readResource(uri: "mem://trace", timeout: .seconds(5), meta: ["trace": "r1"])
        XCTAssertEqual(read["contents"]?[0]?["text"], "r1")
        let prompt = try await client.getPrompt(name: "trace", meta: ["trace": "p1"])
        XCTAssertEqual(prompt["messages"]?[0]?["content"]?["text"], "p1")
        let completion = try await client.complete(
            ref: ["type": "ref/prompt", "name": "trace"], argument: "x", value: "", meta: ["trace": "c1"])
        XCTAssertEqual(completion["completion"]?["values"], ["c1"])
        await client.close()
    }

    func testCallOptionsCarryTaskAndMetaAndTheBridgeRefusesBadOnes() async throws {
        let server = try Server(name: "options", version: "1", settings: ["tasks": true])
        try server.addTool(
            "meta", descriptor: ["execution": ["taskSupport": "optional"]]
        ) { (_: JSONValue, ctx: Context) -> JSONValue in
            ctx.meta?["trace"] ?? "none"
        }
        let client = try await Client.inMemory(server: server)
        let traced = try await client.callTool(name: "meta", meta: ["trace": "t1"])
        XCTAssertEqual(traced.text, "t1")
        let created = try await client.callTool(name: "meta", task: ["ttl": 60000])
        XCTAssertNotNil(created.raw["task"]?["taskId"]?.stringValue, "\(created.raw)")
        let bad: [(task: JSONValue?, meta: JSONValue?, named: String)] = [
            (5, nil, "task"), (["ttl": -1], nil, "task"), (nil, [1], "meta"),
        ]
        for (task, meta, named) in bad {
            do {
                _ = try await client.callTool(name: "meta", task: task, meta: meta)
                XCTFail("\(named) was taken")
            } catch let error as MCPError {
                XCTAssertEqual(error.kind, .invalidInput)
                XCTAssertTrue(error.message.contains(named), error.message)
            }
        }
        await client.close()
    }
}
