import McpWeft
import XCTest

/// Revision 2026-07-28 through the bridge: a handler that asks with `Context.ask` works for
/// clients of both revisions (2025-11-25 gets server-to-client requests, 2026-07-28 gets
/// `input_required` results and retries), and the Swift client speaks either.
final class RevisionTests: XCTestCase {
    static let next = "2026-07-28"

    /// An elicitation form with one required property.
    static func form(_ message: String, _ property: String, _ type: String) -> JSONValue {
        [
            "message": .string(message),
            "requestedSchema": [
                "type": "object", "properties": .object([property: ["type": .string(type)]]),
                "required": [.string(property)],
            ],
        ]
    }

    /// A server whose `book` tool asks for the guests, then a date, keeping the guests in the
    /// state so that it asks for them once, and whose `all` tool asks for a form, a sample and
    /// the roots at once; `runs` records each run of a handler.
    func roundsServer(_ runs: Recorder<String>) throws -> Server {
        let server = try Server(name: "rounds", version: "1.0.0")
        try server.addTool("book", description: "Books a table.") { (_: JSONValue, ctx: Context) -> JSONValue in
            await runs.add("book")
            var guests = ctx.state?["guests"]
            if guests == nil {
                guests = try await ctx.ask("guests", "elicitation/create", params: Self.form("How many guests?", "n", "integer"))["content"]?["n"]
            }
            try ctx.setState(["guests": guests ?? .null])
            let date = try await ctx.ask("date", "elicitation/create", params: Self.form("Which day?", "day", "string"))
            let day = date["content"]?["day"]?.stringValue ?? "?"
            return .string("\(guests?.intValue ?? 0) guests on \(day) (\(ctx.protocolVersion ?? "?"))")
        }
        try server.addTool("all", description: "Asks for three inputs at once.") { (_: JSONValue, ctx: Context) -> JSONValue in
            await runs.add("all")
            // Started together, before any answer is awaited, so that they share one round.
            async let name = ctx.ask("name", "elicitation/create", params: Self.form("Your name?", "name", "string"))
            async let greeting = ctx.ask("greeting", "sampling/createMessage", params: ["messages": [], "maxTokens": 10])
            async let roots = ctx.ask("roots", "roots/list")
            let (n, g, r) = try await (name, greeting, roots)
            let uris = (r["roots"]?.arrayValue ?? []).compactMap { $0["uri"]?.stringValue }
            return .string("\(g["content"]?["text"]?.stringValue ?? ""), \(n["content"]?["name"]?.stringValue ?? ""): \(uris.joined(separator: " "))")
        }
        return server
    }

    /// Client handlers that answer every request for input, recording the questions.
    func answering(_ asked: Recorder<String>) -> ClientHandlers {
        ClientHandlers(
            sampling: { _, _ in
                await asked.add("sample")
                return ["role": "assistant", "content": ["type": "text", "text": "Hello"], "model": "test-model"]
            },
            elicitation: { params, _ in
                await asked.add(params["message"]?.stringValue ?? "")
                let property = params["requestedSchema"]?["properties"]?.objectValue?.keys.first ?? ""
                let answers: [String: JSONValue] = ["n": 2, "day": "May 1", "name": "Ada"]
                return ["action": "accept", "content": .object([property: answers[property] ?? .null])]
            },
            roots: { _ in
                await asked.add("roots")
                return [["uri": "file:///work"]]
            })
    }

    func testA2026ClientAnswersInputRoundsKeepingTheStateBetweenThem() async throws {
        let runs = Recorder<String>()
        let asked = Recorder<String>()
        let client = try await Client.inMemory(
            server: roundsServer(runs), options: ["protocolVersion": .string(Self.next)], handlers: answering(asked))
        XCTAssertEqual(client.protocolVersion, Self.next)
        let result = try await client.callTool(name: "book")
        XCTAssertEqual(result.text, "2 guests on May 1 (\(Self.next))")
        // Three runs, one per round; the guests are asked once since the state carried them.
        let ran = await runs.items
        XCTAssertEqual(ran, ["book", "book", "book"])
        let questions = await asked.items
        XCTAssertEqual(questions, ["How many guests?", "Which day?"])
        await client.close()
    }

    func testA2025ClientGetsTheSameHandlersRequestsInOneRun() async throws {
        let runs = Recorder<String>()
        let asked = Recorder<String>()
        let client = try await Client.inMemory(server: roundsServer(runs), handlers: answering(asked))
        XCTAssertEqual(client.protocolVersion, "2025-11-25")
        let result = try await client.callTool(name: "book")
        XCTAssertEqual(result.text, "2 guests on May 1 (2025-11-25)")
        let ran = await runs.items
        XCTAssertEqual(ran, ["book"])
        let questions = await asked.items
        XCTAssertEqual(questions, ["How many guests?", "Which day?"])
        await client.close()
    }

    func testRequestsForInputMadeTogetherShareOneRound() async throws {
        for version in [Self.next, "2025-11-25"] {
            let runs = Recorder<String>()
            let asked = Recorder<String>()
            let client = try await Client.inMemory(
                server: roundsServer(runs), options: ["protocolVersion": .string(version)], handlers: answering(asked))
            let result = try await client.callTool(name: "all")
            XCTAssertEqual(result.text, "Hello, Ada: file:///work", version)
            let ran = await runs.items
            XCTAssertEqual(ran.count, version == Self.next ? 2 : 1, version)
            let questions = await asked.items
            XCTAssertEqual(questions.sorted(), ["Your name?", "roots", "sample"], version)
            await client.close()
        }
    }

    func testA2026ClientSpeaksTheRevisionOverHTTP() async throws {
        let http = try await roundsServer(Recorder<String>()).serveHTTP(port: 0)
        let client = try await Client.http(
            url: http.url, options: ["protocolVersion": .string(Self.next)], handlers: answering(Recorder<String>()))
        XCTAssertEqual(client.protocolVersion, Self.next)
        let result = try await client.callTool(name: "book")
        XCTAssertEqual(result.text, "2 guests on May 1 (\(Self.next))")
        await client.close()
        try await http.close()
    }

    /// A skill added with `addSkill` is listed in `skills/list` and its files are resources.
    func testASkillIsListedAndItsFilesAreResources() async throws {
        let skillMD = "---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nRead references/FORMS.md first.\n"
        let server = try Server(name: "skills", version: "1.0.0")
        try server.addSkill(skillMD, files: ["references/FORMS.md": "Forms have fields.\n"])
        let client = try await Client.inMemory(server: server, options: ["protocolVersion": .string(Self.next)])
        XCTAssertNotNil(client.serverInfo["capabilities"]?["extensions"]?["io.modelcontextprotocol/skills"])
        let listed = try await client.request("skills/list")
        let skill = listed["skills"]?.arrayValue?.first
        XCTAssertEqual(skill?["uri"]?.stringValue, "skill://pdf-processing/SKILL.md")
        XCTAssertEqual(skill?["resources"]?.arrayValue?.count, 2)
        let read = try await client.readResource(uri: "skill://pdf-processing/references/FORMS.md")
        XCTAssertEqual(read["contents"]?[0]?["text"]?.stringValue, "Forms have fields.\n")
        await client.close()
        XCTAssertThrowsError(try server.addSkill(skillMD.replacingOccurrences(of: "pdf-processing", with: "PDF--x"))) {
            XCTAssertEqual(($0 as? MCPError)?.kind, .config)
        }
    }
}
