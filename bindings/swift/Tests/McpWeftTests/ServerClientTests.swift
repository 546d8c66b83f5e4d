import McpWeft
import XCTest

final class ServerClientTests: XCTestCase {
    func testDescriptorsReachTheClient() async throws {
        let client = try await Client.inMemory(server: makeServer(), options: ["name": "tester", "version": "9"])
        XCTAssertEqual(client.serverInfo["serverInfo"]?["name"], "swift-test")
        XCTAssertEqual(client.serverInfo["serverInfo"]?["version"], "1.2.3")
        XCTAssertEqual(client.serverInfo["instructions"], "Be nice.")
        XCTAssertEqual(client.protocolVersion, "2025-11-25")
        let tools = try await client.listTools()
        XCTAssertEqual(tools.compactMap { $0["name"]?.stringValue }.sorted(), ["add", "echo", "fail", "slow"])
        let add = try XCTUnwrap(tools.first { $0["name"] == "add" })
        XCTAssertEqual(add["description"], "Adds two numbers.")
        XCTAssertEqual(add["inputSchema"]?["required"], ["a", "b"])
        let page = try await client.list("tools")
        XCTAssertEqual(page["tools"]?.arrayValue?.count, 2, "pages follow the server's page size")
        XCTAssertNotNil(page["nextCursor"]?.stringValue)
        let resources = try await client.listResources()
        XCTAssertEqual(resources.first?["mimeType"], "text/markdown")
        let templates = try await client.listResourceTemplates()
        XCTAssertEqual(templates.first?["uriTemplate"], "mem://users/{id}")
        let prompt = try await client.listPrompts().first
        XCTAssertEqual(prompt?["arguments"]?[0]?["required"], true)
        await client.close()
        await client.close()
    }

    func testToolsTakeAndReturnSwiftValues() async throws {
        let client = try await Client.inMemory(server: makeServer())
        let sum = try await client.callTool(name: "add", arguments: Operands(a: 2, b: 3.5))
        XCTAssertFalse(sum.isError)
        XCTAssertEqual(try sum.decode(Sum.self), Sum(sum: 5.5))
        XCTAssertEqual(try JSONValue(parsing: sum.text), ["sum": 5.5])
        let echoed = try await client.callTool(name: "echo", arguments: ["q": [1, "two"]])
        XCTAssertEqual(echoed.structuredContent, ["q": [1, "two"]])
        let invalid = try await client.callTool(name: "add", arguments: ["a": "x"])
        XCTAssertTrue(invalid.isError, "arguments are checked against the input schema")
        await client.close()
    }

    /// A handler's string value crosses to the core as that string, not as JSON text: the
    /// client must get every one back exactly, as a single text block, from a plain or a typed
    /// handler.
    func testStringResultsReachTheClientUnchanged() async throws {
        let server = try Server(name: "strings", version: "1")
        try server.addTool("say") { (args: JSONValue, _: Context) in args["text"] ?? "" }
        try server.addTool("typed") { (args: [String: String], _: Context) in args["text"] ?? "" }
        let client = try await Client.inMemory(server: server)
        let mixed = "héllo \"quoted\" back\\slash\ttab\nline \u{0}nul \u{1F} 日本語 🎉 \u{301}"
        for text in ["", "plain", "\"", "\\", mixed, String(repeating: mixed, count: 2000), String(repeating: "0123456789abcdef", count: 4096)] {
            for tool in ["say", "typed"] {
                let result = try await client.callTool(name: tool, arguments: ["text": .string(text)])
                XCTAssertFalse(result.isError)
                XCTAssertEqual(result.content.count, 1)
                XCTAssertEqual(result.content.first?["type"], "text")
                XCTAssertEqual(result.text.utf8.count, text.utf8.count, "\(tool) \(text.prefix(20))")
                XCTAssertTrue(result.text.utf8.elementsEqual(text.utf8), "\(tool) \(text.prefix(20))")
            }
        }
        await client.close()
    }

    func testThrownErrorsFollowThePolicy() async throws {
        let client = try await Client.inMemory(server: makeServer())
        let failed = try await client.callTool(name: "fail")
        XCTAssertTrue(failed.isError)
        XCTAssertEqual(failed.text, "it broke")
        do {
            _ = try await client.callTool(name: "fail", arguments: ["code": -32042])
            XCTFail("an MCPError with a code answers with that JSON-RPC error")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .rpc)
            XCTAssertEqual(error.code, MCPError.Code.urlElicitationRequired)
            XCTAssertEqual(error.message, "chosen error")
            XCTAssertEqual(error.data, ["why": "test"])
        }
        do {
            _ = try await client.callTool(name: "nope")
            XCTFail("an unknown tool is an error")
        } catch let error as MCPError {
            XCTAssertEqual(error.code, MCPError.Code.invalidParams)
        }
        await client.close()
    }

    func testResourcesPromptsAndCompletions() async throws {
        let client = try await Client.inMemory(server: makeServer())
        let readme = try await client.readResource(uri: "mem://readme")
        XCTAssertEqual(readme["contents"]?[0], ["uri": "mem://readme", "mimeType": "text/markdown", "text": "# Hi"])
        let user = try await client.readResource(uri: "mem://users/7")
        XCTAssertEqual(try JSONValue(parsing: user["contents"]?[0]?["text"]?.stringValue ?? ""), ["id": "7"])
        do {
            _ = try await client.readResource(uri: "mem://users/0")
            XCTFail("a missing resource is an error")
        } catch let error as MCPError {
            XCTAssertEqual(error.code, MCPError.Code.resourceNotFound)
        }
        let prompt = try await client.getPrompt(name: "greet", arguments: ["who": "Ada"])
        XCTAssertEqual(prompt["description"], "Greets.")
        XCTAssertEqual(prompt["messages"]?[0]?["content"]?["text"], "Hello Ada")
        let completion = try await client.complete(
            ref: ["type": "ref/prompt", "name": "greet"], argument: "who", value: "A", arguments: ["lang": "fr"])
        XCTAssertEqual(completion["completion"]?["values"], ["A-1", "A-fr"])
        await client.close()
    }

    func testProgressLoggingAndListChangesReachTheClient() async throws {
        let server = try makeServer()
        let heard = Recorder<JSONValue>()
        let client = try await Client.inMemory(
            server: server,
            handlers: ClientHandlers(notification: { method, params in await heard.add(["method": .string(method), "params": params]) }))
        try await client.setLoggingLevel(.debug)
        let progress = Recorder<JSONValue>()
        let done = try await client.callTool(name: "slow", arguments: ["n": 1]) { p in Task { await progress.add(p) } }
        XCTAssertEqual(done.structuredContent, ["n": 1])
        try await eventually("progress arrives") { await progress.items.count == 1 }
        let first = await progress.items.first
        XCTAssertEqual(first?["message"], "half")
        XCTAssertEqual(first?["total"]?.doubleValue, 2)

        XCTAssertTrue(server.removeTool("echo"))
        XCTAssertFalse(server.removeTool("echo"))
        try server.log(.warning, ["n": 1])
        _ = try await client.request("resources/subscribe", params: ["uri": "mem://readme"])
        server.notifyResourceUpdated("mem://readme")
        try await eventually("the resource update arrives") {
            await heard.items.contains { $0["method"] == "notifications/resources/updated" }
        }
        let methods = await heard.items.compactMap { $0["method"]?.stringValue }
        XCTAssertTrue(methods.contains("notifications/tools/list_changed"), "\(methods)")
        let logs = await heard.items.filter { $0["method"] == "notifications/message" }
        XCTAssertTrue(logs.contains { $0["params"]?["logger"] == "slow" && $0["params"]?["data"] == "working" })
        XCTAssertTrue(logs.contains { $0["params"]?["data"] == ["n": 1] })
        let tools = try await client.listTools()
        XCTAssertEqual(tools.count, 3)
        await client.close()
    }

    func testTheContextAsksTheClientForInput() async throws {
        let server = try Server(name: "asker", version: "1")
        try server.addTool("ask") { (_: JSONValue, ctx: Context) -> JSONValue in
            let roots = try await ctx.listRoots()
            let sampled = try await ctx.sample([
                "messages": [["role": "user", "content": ["type": "text", "text": "hi"]]], "maxTokens": 5,
            ])
            let form = try await ctx.elicit(
                message: "name?", requestedSchema: ["type": "object", "properties": ["n": ["type": "string"]]])
            return [
                "roots": roots, "sampled": sampled, "form": form, "client": ctx.clientInfo ?? nil,
                "version": .string(ctx.protocolVersion ?? ""), "id": ctx.requestID ?? nil,
            ]
        }
        let without = try await Client.inMemory(server: server)
        let refused = try await without.callTool(name: "ask")
        XCTAssertTrue(refused.isError)
        await without.close()

        let handlers = ClientHandlers(
            sampling: { params, _ in
                XCTAssertEqual(params["maxTokens"], 5)
                return ["role": "assistant", "content": ["type": "text", "text": "hello"], "model": "m"]
            },
            elicitation: { params, _ in
                XCTAssertEqual(params["message"], "name?")
                return ["action": "accept", "content": ["n": "Ada"]]
            },
            roots: { _ in [["uri": "file:///tmp", "name": "tmp"]] })
        let client = try await Client.inMemory(server: server, options: ["name": "tester", "version": "9"], handlers: handlers)
        let out = try await client.callTool(name: "ask").structuredContent
        XCTAssertEqual(out?["roots"]?["roots"]?[0]?["uri"], "file:///tmp")
        XCTAssertEqual(out?["sampled"]?["content"]?["text"], "hello")
        XCTAssertEqual(out?["form"]?["content"]?["n"], "Ada")
        XCTAssertEqual(out?["client"]?["name"], "tester")
        XCTAssertEqual(out?["version"], "2025-11-25")
        XCTAssertNotNil(out?["id"]?.intValue ?? out?["id"]?.stringValue.map { _ in 0 })
        await client.close()
    }

    func testRootsChangesReachTheServer() async throws {
        let server = try Server(name: "r", version: "1")
        let seen = Recorder<JSONValue>()
        try server.onRootsChanged { ctx in await seen.add(try await ctx.listRoots()) }
        XCTAssertThrowsError(try server.onRootsChanged { _ in }) { error in
            XCTAssertEqual((error as? MCPError)?.kind, .config)
        }
        let client = try await Client.inMemory(server: server, handlers: ClientHandlers(roots: { _ in ["roots": [["uri": "file:///a"]]] }))
        try client.notifyRootsChanged()
        try await eventually("the server hears the roots") { await !seen.items.isEmpty }
        let roots = await seen.items.first
        XCTAssertEqual(roots?["roots"]?[0]?["uri"], "file:///a")
        await client.close()
    }

    /// A schema and a result go out with their members in the order written, and a handler
    /// logs an interpolated string as it would any string.
    func testSchemasAndResultsKeepTheirOrderAndLogsTakeInterpolations() async throws {
        let server = try Server(name: "ordered", version: "1")
        let schema: JSONValue = [
            "type": "object", "properties": ["width": ["type": "number"], "height": ["type": "number"], "label": [:]],
            "required": ["width", "height"],
        ]
        try server.addTool("area", inputSchema: schema) { (args: JSONValue, ctx: Context) -> JSONValue in
            let x = (args["width"]?.doubleValue ?? 0) * (args["height"]?.doubleValue ?? 0)
            try ctx.log(.info, "area \(x)")
            return ["zeta": 1, "alpha": 2, "area": .int(Int(x))]
        }
        let logs = Recorder<JSONValue>()
        let client = try await Client.inMemory(server: server, handlers: ClientHandlers(logging: { await logs.add($0) }))
        try await client.setLoggingLevel(.info)
        let tool = try await client.listTools().first
        XCTAssertEqual(tool?["inputSchema"]?.objectValue?.keys, ["type", "properties", "required"])
        XCTAssertEqual(tool?["inputSchema"]?["properties"]?.objectValue?.keys, ["width", "height", "label"])
        let result = try await client.callTool(name: "area", arguments: ["width": 2, "height": 3])
        XCTAssertEqual(result.structuredContent?.objectValue?.keys, ["zeta", "alpha", "area"])
        XCTAssertEqual(result.text, #"{"zeta":1,"alpha":2,"area":6}"#)
        try await eventually("the log arrives") { await !logs.items.isEmpty }
        let logged = await logs.items
        XCTAssertEqual(logged.first?["data"], "area 6.0")
        XCTAssertEqual(logged.first?["level"], "info")
        await client.close()
    }

    /// A template with a `list` closure lists its resources in `resources/list`, after the
    /// fixed ones, with the template's metadata where they set none; `replace` replaces both.
    func testAListedTemplateListsItsResources() async throws {
        let server = try Server(name: "listed", version: "1")
        try server.addResource("mem://readme", name: "readme") { _, _ in "hi" }
        try server.addResourceTemplate(
            "mem://users/{id}", name: "user", description: "A user.", mimeType: "application/json",
            list: { ctx in
                XCTAssertNotNil(ctx.requestID)
                return [["uri": "mem://users/1", "name": "Ada"], ["uri": "mem://users/2", "name": "Alan", "mimeType": "text/plain"]]
            }
        ) { request, _ in ["id": request.variables["id"] ?? nil] }
        let client = try await Client.inMemory(server: server)
        let resources = try await client.listResources()
        XCTAssertEqual(resources.compactMap { $0["uri"]?.stringValue }, ["mem://readme", "mem://users/1", "mem://users/2"])
        XCTAssertEqual(resources[1]["mimeType"], "application/json")
        XCTAssertEqual(resources[1]["description"], "A user.")
        XCTAssertEqual(resources[2]["mimeType"], "text/plain")
        let templates = try await client.listResourceTemplates()
        XCTAssertEqual(templates.compactMap { $0["uriTemplate"]?.stringValue }, ["mem://users/{id}"])
        let user = try await client.readResource(uri: "mem://users/2")
        XCTAssertEqual(try JSONValue(parsing: user["contents"]?[0]?["text"]?.stringValue ?? ""), ["id": "2"])

        XCTAssertThrowsError(try server.addResourceTemplate("mem://users/{id}", name: "user", list: { _ in [] }) { _, _ in nil }) {
            XCTAssertEqual(($0 as? MCPError)?.kind, .config)
        }
        try server.addResourceTemplate(
            "mem://users/{id}", name: "user", replace: true, list: { _ in ["resources": [["uri": "mem://users/3", "name": "Grace"]]] }
        ) { _, _ in nil }
        let replaced = try await client.listResources()
        XCTAssertEqual(replaced.compactMap { $0["uri"]?.stringValue }, ["mem://readme", "mem://users/3"])
        XCTAssertTrue(server.removeResourceTemplate("mem://users/{id}"))
        let removed = try await client.listResources()
        XCTAssertEqual(removed.compactMap { $0["uri"]?.stringValue }, ["mem://readme"])
        await client.close()
    }

    func testANameRegisteredTwiceIsRefusedUnlessReplaced() async throws {
        let server = try Server(name: "twice", version: "1")
        let registrations: [(String, (Bool) throws -> Void)] = [
            ("tool", { replace in try server.addTool("t", replace: replace) { (a: JSONValue, _: Context) in a } }),
            ("resource", { replace in try server.addResource("mem://r", name: "r", replace: replace) { _, _ in "r" } }),
            ("resource template", { replace in
                try server.addResourceTemplate("mem://{x}", name: "x", replace: replace) { _, _ in "x" }
            }),
            ("resource template", { replace in
                try server.addResourceTemplate("mem://{y}", name: "y", replace: replace, list: { _ in [] }) { _, _ in "y" }
            }),
            ("prompt", { replace in try server.addPrompt("p", replace: replace) { _, _ in "p" } }),
            ("skill", { replace in try server.addSkill("---\nname: s\ndescription: S.\n---\n", replace: replace) }),
        ]
        for (what, register) in registrations {
            try register(false)
            XCTAssertThrowsError(try register(false), what) { error in
                XCTAssertEqual((error as? MCPError)?.kind, .config)
                XCTAssertTrue((error as? MCPError)?.message.hasPrefix("the \(what) ") ?? false, "\(error)")
                XCTAssertTrue((error as? MCPError)?.message.contains("already registered") ?? false, "\(error)")
            }
            try register(true)
        }
    }

    func testBadInputIsAClearError() async throws {
        XCTAssertThrowsError(try Server(name: "x", version: "1", settings: ["pagesize": 3])) { error in
            XCTAssertEqual((error as? MCPError)?.kind, .invalidInput)
            XCTAssertTrue((error as? MCPError)?.message.contains("pagesize") ?? false)
        }
        let server = try Server(name: "x", version: "1")
        XCTAssertThrowsError(
            try server.addTool("t", inputSchema: ["type": "object", "minimum": "x"]) { (a: JSONValue, _: Context) in a }
        ) { error in XCTAssertEqual((error as? MCPError)?.kind, .config) }
        XCTAssertThrowsError(try server.addResourceTemplate("a://{", name: "t") { _, _ in nil }) { error in
            XCTAssertEqual((error as? MCPError)?.kind, .config)
        }
        do {
            _ = try await Client.stdio(command: "/nonexistent/mcp-server")
            XCTFail("spawning a missing program fails")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .io)
            XCTAssertTrue(error.causes.contains { $0.contains("/nonexistent/mcp-server") }, "\(error)")
        }
    }
}
