import Foundation
import McpWeft
import XCTest

final class HostTests: XCTestCase {
    /// The Rust calculator over stdio.
    func calculator() throws -> String {
        let calculator = Paths.cargoTarget + "/debug/examples/calculator_server"
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: calculator), "\(calculator) is not built")
        return calculator
    }

    /// The Rust calculator and a command that fails before it answers.
    func hostConfig() throws -> JSONValue {
        [
            "mcpServers": [
                "calc": ["command": .string(try calculator())],
                "broken": ["command": "sh", "args": ["-c", "echo 'no such database' >&2; exit 2"]],
            ]
        ]
    }

    /// The first event of `events` that `wanted` accepts, within 20 seconds.
    func nextEvent(
        _ events: inout MCPHost.Events.AsyncIterator, _ wanted: @escaping @Sendable (HostEvent) -> Bool
    ) async throws -> HostEvent {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            guard let event = try await events.next() else { break }
            if wanted(event) { return event }
        }
        XCTFail("no wanted event came")
        throw CancellationError()
    }

    /// A host over three real servers at once (the Rust calculator over stdio, the Python
    /// calculator over Streamable HTTP that test.sh serves, the official reference server over
    /// stdio) and a server that cannot start, as the Rust, Python and Node tests run it.
    func testAHostOfThreeRealServersAndOneThatCannotStart() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let pythonURL = environment["MCPWEFT_TEST_PYTHON_URL"], let node = environment["MCPWEFT_TEST_NODE"]
        else { throw XCTSkip("test.sh serves the Python calculator and names Node") }
        let everything = Paths.package + "/../../tests/host/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
        let pidfile = FileManager.default.temporaryDirectory.appendingPathComponent("mcpweft-host-\(UUID()).pid").path
        defer { try? FileManager.default.removeItem(atPath: pidfile) }
        let sampled = Recorder<String>()
        let heard = Recorder<String>()
        let host = try await MCPHost.connect(
            [
                "mcpServers": [
                    "rust": ["command": "sh", "args": ["-c", .string("echo $$ > '\(pidfile)'; exec '\(try calculator())'")]],
                    "python": ["type": "http", "url": .string(pythonURL)],
                    "everything": ["command": .string(node), "args": [.string(everything), "stdio"]],
                    "broken": ["command": "sh", "args": ["-c", "echo 'no API key given' >&2; exit 2"]],
                ]
            ],
            options: ["name": "swift-host-test"],
            handlers: HostHandlers(
                sampling: { server, params, _ in
                    await sampled.add("\(server) \(params["maxTokens"]?.intValue ?? 0)")
                    return ["role": "assistant", "content": ["type": "text", "text": "a sampled answer"], "model": "test"]
                },
                notification: { server, method, params in
                    await heard.add("\(server) \(method) \(params["data"]?.stringValue ?? "")")
                }))

        XCTAssertEqual(host.servers().map(\.name), ["rust", "python", "everything", "broken"])
        for server in ["rust", "python", "everything"] {
            XCTAssertEqual(try host.state(server), .ready, server)
        }
        guard case .failed(_, let stderr) = try host.state("broken") else {
            return XCTFail("broken is \(String(describing: try? host.state("broken")))")
        }
        XCTAssertTrue(stderr?.contains("no API key given") ?? false, "stderr: \(String(describing: stderr))")
        XCTAssertThrowsError(try host.state("nobody")) { error in
            XCTAssertEqual((error as? MCPError)?.kind, .config)
        }

        // Namespaced tools of each server, called on each.
        let tools = Dictionary(
            host.tools().map { ($0["name"]?.stringValue ?? "", $0["server"]?.stringValue ?? "") },
            uniquingKeysWith: { first, _ in first })
        for (server, tool) in [("rust", "add"), ("python", "add"), ("everything", "get-sum"), ("everything", "echo")] {
            XCTAssertEqual(tools["\(server)__\(tool)"], server)
        }
        // Both calculators list the same resources: the host offers neither and reads them from
        // the server named.
        XCTAssertEqual(
            host.collisions(),
            [
                ["kind": "resource", "name": "calc://constants", "servers": ["rust", "python"]],
                ["kind": "resourceTemplate", "name": "calc://constants/{name}", "servers": ["rust", "python"]],
            ])
        let rustSum = try await host.callTool("rust__add", arguments: ["a": 2, "b": 3])
        XCTAssertEqual(rustSum.structuredContent, ["sum": 5.0])
        let pythonSum = try await host.callTool("python__add", arguments: ["a": 2, "b": 3])
        XCTAssertEqual(pythonSum.structuredContent, ["sum": 5.0])
        let referenceSum = try await host.callTool("everything__get-sum", arguments: ["a": 2, "b": 3])
        XCTAssertEqual(referenceSum.text, "The sum of 2 and 3 is 5.")
        let echo = try await host.callTool("everything__echo", arguments: ["message": "hi"])
        XCTAssertEqual(echo.text, "Echo: hi")
        let constants = try await host.readResource("calc://constants", server: "python")
        XCTAssertTrue(constants["contents"]?[0]?["text"]?.stringValue?.contains("\"pi\"") ?? false, "\(constants)")
        let prompt = try await host.getPrompt("rust__explain", arguments: ["expression": "2+3"])
        XCTAssertTrue(prompt["messages"]?[0]?["content"]?["text"]?.stringValue?.contains("2+3") ?? false, "\(prompt)")

        // The handlers are told which server asks.
        _ = try await host.callTool("rust__count", arguments: ["n": 1])
        try await eventually("the Rust server's log") {
            await heard.items.contains("rust notifications/message step 1 of 1")
        }
        try await eventually("the reference server's sampling tool", timeout: .seconds(20)) {
            host.tools().contains { $0["name"] == "everything__trigger-sampling-request" }
        }
        let answer = try await host.callTool(
            "everything__trigger-sampling-request", arguments: ["prompt": "hello", "maxTokens": 5])
        XCTAssertTrue(answer.text.contains("a sampled answer"), answer.text)
        let asked = await sampled.items
        XCTAssertEqual(asked, ["everything 5"])

        // A list change: the reference server lists a resource it makes.
        var events = host.events.makeAsyncIterator()
        let made = try await host.callTool(
            "everything__gzip-file-as-resource",
            arguments: ["name": "hello.txt.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resourceLink"])
        XCTAssertFalse(made.isError, "\(made.raw)")
        let changed = try await nextEvent(&events) { if case .listChanged = $0 { true } else { false } }
        XCTAssertEqual(changed, .listChanged(server: "everything", list: "resources"))
        let resource = host.resources().first { $0["uri"] == "demo://resource/session/hello.txt.gz" }
        XCTAssertEqual(resource?["server"], "everything")

        // A long call kept alive by progress past its time-out; the total limit still ends one.
        let progress = Recorder<JSONValue>()
        let done = try await host.callTool(
            "everything__trigger-long-running-operation", arguments: ["duration": 2, "steps": 8],
            timeout: .seconds(1)
        ) { p in Task { await progress.add(p) } }
        XCTAssertTrue(done.text.contains("Long running operation completed"), done.text)
        try await eventually("eight progress notifications") { await progress.items.count == 8 }
        do {
            _ = try await host.callTool(
                "everything__trigger-long-running-operation", arguments: ["duration": 3, "steps": 6],
                timeout: .seconds(1), maxTotalTimeout: .milliseconds(800))
            XCTFail("the total limit did not end the call")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .timeout, error.message)
        }

        // The Rust server killed mid-session is started again, and calls work again.
        let pid = try String(contentsOfFile: pidfile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(kill(pid_t(pid) ?? 0, SIGKILL), 0)
        let gone = try await nextEvent(&events) { if case .stateChanged("rust", _) = $0 { true } else { false } }
        XCTAssertEqual(gone, .stateChanged(server: "rust", state: .connecting))
        let back = try await nextEvent(&events) { if case .stateChanged("rust", _) = $0 { true } else { false } }
        XCTAssertEqual(back, .stateChanged(server: "rust", state: .ready))
        let again = try await host.callTool("rust__add", arguments: ["a": 20, "b": 22])
        XCTAssertEqual(again.structuredContent, ["sum": 42.0])

        // A failed server is tried again on demand, and fails the same way.
        try host.restart("broken")
        let retried = try await nextEvent(&events) {
            if case .stateChanged("broken", .failed) = $0 { true } else { false }
        }
        guard case .stateChanged(_, .failed(_, let stderrAgain)) = retried else { return XCTFail("\(retried)") }
        XCTAssertTrue(stderrAgain?.contains("no API key given") ?? false, "\(String(describing: stderrAgain))")

        await host.close()
        XCTAssertTrue(host.servers().allSatisfy { $0.state == .closed }, "\(host.servers())")
        var ends: [HostEvent] = []
        while let event = try await events.next() { ends.append(event) }
        XCTAssertTrue(ends.contains(.stateChanged(server: "python", state: .closed)), "\(ends)")
    }

    /// Calls through the host and its events over the calculator and a failing command.
    func testAHostOverTheCalculatorAndAFailingCommand() async throws {
        let host = try await MCPHost.connect(try hostConfig(), options: ["name": "swift-host-test"])
        XCTAssertEqual(host.servers().map(\.name), ["calc", "broken"])
        XCTAssertEqual(try host.state("calc"), .ready)
        let names = Set(host.tools().compactMap { $0["name"]?.stringValue })
        XCTAssertTrue(names.isSuperset(of: ["calc__add", "calc__divide", "calc__count"]), "\(names)")
        XCTAssertTrue(host.prompts().contains { $0["name"] == "calc__explain" })
        do {
            _ = try await host.callTool("broken__anything")
            XCTFail("a tool of a failed server was called")
        } catch let error as MCPError {
            XCTAssertTrue(error.message.contains("broken") || error.message.contains("anything"), error.message)
        }
        await host.close()
        XCTAssertEqual(try host.state("calc"), .closed)
        // Closing the host ends the event sequences.
        var after = 0
        for try await _ in host.events { after += 1 }
        XCTAssertEqual(after, 0)
    }

    func testAHostReadsAConfigurationFile() async throws {
        let config = try hostConfig()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mcpweft-host-\(UUID()).json")
        try config.jsonText.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let host = try await MCPHost.connect(path: file.path, options: ["separator": "."])
        XCTAssertTrue(host.tools().contains { $0["name"] == "calc.add" })
        let sum = try await host.callTool("calc.add", arguments: ["a": 1, "b": 1])
        XCTAssertEqual(sum.structuredContent, ["sum": 2.0])
        await host.close()
    }

    /// A tool called as a task through the host runs on the server that offers it, and the
    /// host follows and cancels it there.
    func testAHostRunsToolCallsAsTasksOnTheirServer() async throws {
        let server = try Server(name: "jobs", version: "1", settings: ["tasks": true])
        let optional: JSONObject = ["execution": ["taskSupport": "optional"]]
        try server.addTool("sum", descriptor: optional) { (o: Operands, _: Context) -> JSONValue in
            try await Task.sleep(for: .milliseconds(50))
            return "\(o.a + o.b)"
        }
        try server.addTool("forever", descriptor: optional) { (_: JSONValue, _: Context) -> JSONValue in
            try await Task.sleep(for: .seconds(60))
            return "late"
        }
        let http = try await server.serveHTTP(port: 0)
        let host = try await MCPHost.connect(["jobs": ["type": "http", "url": .string(http.url)]])
        let task = try await host.callToolAsTask("jobs__sum", arguments: ["a": 2, "b": 3], ttl: .seconds(60))
        XCTAssertEqual(task["server"], "jobs")
        let id = try XCTUnwrap(task["taskId"]?.stringValue, "\(task)")
        let state = try await host.getTask(id, server: "jobs")
        XCTAssertEqual(state["taskId"]?.stringValue, id)
        let result = try await host.taskResult(id, server: "jobs", timeout: .seconds(5))
        XCTAssertEqual(result.text, "5.0")

        let running = try await host.callToolAsTask("jobs__forever")
        let other = try XCTUnwrap(running["taskId"]?.stringValue)
        let cancelled = try await host.cancelTask(other, server: "jobs")
        XCTAssertEqual(cancelled["status"], "cancelled")
        do {
            _ = try await host.getTask(id, server: "nobody")
            XCTFail("a server that is not configured was asked")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .config)
        }
        await host.close()
        try await http.close()
    }
}
