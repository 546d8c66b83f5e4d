import Foundation
import McpWeft
import XCTest

/// The `mcpweft` command of the workspace against the Swift calculator example over stdio, in
/// text and with `--json`, as the Rust, Python and Node tests run it against theirs.
final class CommandLineTests: XCTestCase {
    /// What one run of the command printed, and how it exited.
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String

        /// The standard output read as JSON.
        func json() throws -> JSONValue {
            try JSONDecoder().decode(JSONValue.self, from: Data(stdout.utf8))
        }
    }

    /// Runs `mcpweft ARGS… -- calculator-server` and returns what it printed.
    func mcpweft(_ arguments: String...) throws -> Run {
        let command = Paths.cargoTarget + "/debug/mcpweft"
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: command), "\(command) is not built")
        let calculator = Paths.product("calculator-server")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: calculator), "\(calculator) is not built")
        // Standard error goes to a file, so that neither pipe fills while the other is read.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("mcpweft-cli-\(UUID()).err")
        FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = arguments + ["--", calculator]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }

    func testToolsCallAndInspectInTextAndJSON() throws {
        let tools = try mcpweft("tools")
        XCTAssertEqual(tools.status, 0, tools.stderr)
        let names = tools.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        XCTAssertEqual(names, ["add", "divide", "count"])

        let listed = try mcpweft("tools", "--json")
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(try listed.json()["tools"]?[0]?["name"], "add")

        let sum = try mcpweft("call", "add", #"{"a": 2, "b": 3}"#)
        XCTAssertEqual(sum.status, 0, sum.stderr)
        XCTAssertTrue(sum.stdout.contains(#""sum": 5"#), sum.stdout)
        let exact = try mcpweft("call", "add", #"{"a": 2, "b": 3}"#, "--json")
        XCTAssertEqual(exact.status, 0, exact.stderr)
        XCTAssertEqual(try exact.json()["structuredContent"], ["sum": 5])

        let failed = try mcpweft("call", "divide", #"{"a": 1, "b": 0}"#)
        XCTAssertEqual(failed.status, 1, "a result with isError exits with 1")
        XCTAssertTrue(failed.stderr.contains("division by zero"), failed.stderr)

        let inspected = try mcpweft("inspect")
        XCTAssertEqual(inspected.status, 0, inspected.stderr)
        XCTAssertTrue(inspected.stdout.contains("calculator"), inspected.stdout)
        XCTAssertTrue(inspected.stdout.contains("calc://constants/{name}"), inspected.stdout)
        let everything = try mcpweft("inspect", "--json")
        XCTAssertEqual(everything.status, 0, everything.stderr)
        XCTAssertEqual(try everything.json()["serverInfo"]?["name"], "calculator")
    }
}
