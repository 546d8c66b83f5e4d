// Compiled once the generated sources have the native host (scripts/build.sh regenerates
// them): until then MCPWEFT_HOST is not set and this file is empty.
#if MCPWEFT_HOST
import Foundation
import McpWeft
import XCTest

final class HostTests: XCTestCase {
    /// The Rust calculator over stdio and a command that fails before it answers.
    func hostConfig() throws -> JSONValue {
        let calculator = Paths.cargoTarget + "/debug/examples/calculator_server"
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: calculator), "\(calculator) is not built")
        return [
            "mcpServers": [
                "calc": ["command": .string(calculator)],
                "broken": ["command": "sh", "args": ["-c", "echo 'no such database' >&2; exit 2"]],
            ]
        ]
    }

    func testAHostOverTheCalculatorAndAFailingCommand() async throws {
        let notes = Recorder<String>()
        let host = try await Host.connect(
            try hostConfig(), options: ["name": "swift-host-test"],
            handlers: HostHandlers(notification: { server, method, _ in await notes.add("\(server) \(method)") }))

        let servers = host.servers()
        XCTAssertEqual(servers.map(\.name), ["calc", "broken"])
        XCTAssertEqual(try host.state("calc"), .ready)
        guard case .failed(let reason, let stderr) = try host.state("broken") else {
            return XCTFail("broken is \(String(describing: try? host.state("broken")))")
        }
        XCTAssertFalse(reason.isEmpty)
        XCTAssertTrue(stderr?.contains("no such database") ?? false, "stderr: \(String(describing: stderr))")

        let tools = host.tools()
        let names = Set(tools.compactMap { $0["name"]?.stringValue })
        XCTAssertTrue(names.isSuperset(of: ["calc__add", "calc__divide", "calc__count"]), "\(names)")
        XCTAssertTrue(tools.allSatisfy { $0["server"] == "calc" })
        XCTAssertEqual(host.collisions(), [])
        XCTAssertTrue(host.prompts().contains { $0["name"] == "calc__explain" })

        let sum = try await host.callTool("calc__add", arguments: ["a": 2, "b": 3])
        XCTAssertEqual(sum.structuredContent, ["sum": 5])
        let progress = Recorder<JSONValue>()
        let counted = try await host.callTool(
            "calc__count", arguments: ["n": 2], timeout: .seconds(5), maxTotalTimeout: .seconds(20)
        ) { p in Task { await progress.add(p) } }
        XCTAssertEqual(counted.text, "counted to 2")
        try await eventually("two progress notifications") { await progress.items.count == 2 }
        let prompt = try await host.getPrompt("calc__explain", arguments: ["expression": "2+3"])
        XCTAssertEqual(prompt["messages"]?[0]?["content"]?["text"], "Explain step by step how to compute 2+3.")

        do {
            _ = try await host.callTool("broken__anything")
            XCTFail("a tool of a failed server was called")
        } catch let error as MCPError {
            XCTAssertTrue(error.message.contains("broken") || error.message.contains("anything"), error.message)
        }
        XCTAssertThrowsError(try host.state("nobody")) { error in
            XCTAssertEqual((error as? MCPError)?.kind, .config)
        }

        // Restarting the failing server shows on the events: it connects and fails again.
        let events = host.events
        try host.restart("broken")
        var seen: [HostEvent] = []
        for try await event in events {
            seen.append(event)
            if case .stateChanged("broken", .failed) = event { break }
        }
        XCTAssertTrue(seen.contains { if case .stateChanged("broken", _) = $0 { true } else { false } }, "\(seen)")

        await host.close()
        XCTAssertEqual(try host.state("calc"), .closed)
        // Closing the host ends the event sequences.
        var after = 0
        for try await _ in host.events { after += 1 }
        XCTAssertEqual(after, 0)
        _ = await notes.items
    }

    func testAHostReadsAConfigurationFile() async throws {
        let config = try hostConfig()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mcpweft-host-\(UUID()).json")
        try config.jsonText.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let host = try await Host.connect(path: file.path, options: ["separator": "."])
        XCTAssertTrue(host.tools().contains { $0["name"] == "calc.add" })
        let sum = try await host.callTool("calc.add", arguments: ["a": 1, "b": 1])
        XCTAssertEqual(sum.structuredContent, ["sum": 2])
        await host.close()
    }
}
#endif
