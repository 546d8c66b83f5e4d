import McpWeft
import XCTest

/// MCP Apps in Swift: a server serves a `ui://` view and binds tools to it; a client or host
/// that declares Apps sees and reads the view and knows which tools only the view may call; a
/// client without Apps gets neither.
final class AppsTests: XCTestCase {
    static let view = "ui://adder/view"
    static let html = "<!doctype html><p id=sum></p>"

    func adder() throws -> Server {
        let server = try Server(name: "adder", version: "1")
        try server.addAppView(
            uri: Self.view, html: Self.html, name: "Adder", csp: AppCSP(connectDomains: ["https://api.example.com"]),
            permissions: [.clipboardWrite], prefersBorder: true)
        try server.addTool("add", inputSchema: ["type": "object"], app: Self.view) { (args: Operands, _: Context) in
            Sum(sum: args.a + args.b)
        }
        try server.addTool("refresh", app: Self.view, visibility: [.app]) { (_: JSONValue, _: Context) -> JSONValue in
            "refreshed"
        }
        return server
    }

    func testAClientWithAppsReadsTheViewAndOneWithoutDoesNotSeeAppOnlyTools() async throws {
        let server = try adder()
        let client = try await Client.inMemory(server: server, apps: true)
        XCTAssertNotNil(client.serverInfo["capabilities"]?["extensions"]?["io.modelcontextprotocol/ui"])
        let tools = try await client.listTools()
        let refresh = try XCTUnwrap(tools.first { $0["name"] == "refresh" })
        XCTAssertEqual(refresh["_meta"]?["ui"], ["resourceUri": .string(Self.view), "visibility": ["app"]])
        let add = try XCTUnwrap(tools.first { $0["name"] == "add" })
        XCTAssertEqual(add["_meta"]?["ui/resourceUri"], .string(Self.view), "the flat key older hosts read")

        let view = try await client.readAppView(Self.view)
        XCTAssertEqual(view.uri, Self.view)
        XCTAssertEqual(view.html, Self.html)
        XCTAssertEqual(view.csp, AppCSP(connectDomains: ["https://api.example.com"]))
        XCTAssertEqual(view.permissions, [.clipboardWrite])
        XCTAssertEqual(view.prefersBorder, true)
        XCTAssertNil(view.domain)
        XCTAssertEqual(
            view.meta,
            ["csp": ["connectDomains": ["https://api.example.com"]], "permissions": ["clipboardWrite": [:]],
             "prefersBorder": true])
        await client.close()

        let plain = try await Client.inMemory(server: server)
        let names = try await plain.listTools().map { $0["name"] }
        XCTAssertEqual(names, ["add"], "a tool only the view may call is not listed without Apps")
        let resources = try await plain.listResources()
        XCTAssertEqual(resources, [], "nor is the view")
        let sum = try await plain.callTool(name: "add", arguments: ["a": 2, "b": 3])
        XCTAssertEqual(sum.structuredContent, ["sum": 5])
        await plain.close()
    }

    func testAHostWithAppsKnowsWhichToolsHaveViewsAndRunsItsMiddleware() async throws {
        let http = try await adder().serveHTTP(port: 0)
        let sent = Recorder<String>()
        let host = try await MCPHost.connect(
            ["mcpServers": ["calc": ["type": "http", "url": .string(http.url)]]], apps: true,
            middleware: [
                Middleware { message, next in
                    await sent.add("\(message.role.rawValue) \(message.direction.rawValue) \(message.method)")
                    return try await next(message)
                }
            ])
        let visible = Dictionary(
            host.tools().map { ($0["name"]?.stringValue ?? "", $0["visibleToModel"]?.boolValue) },
            uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(visible, ["calc__add": true, "calc__refresh": false])
        let view = try await host.readAppView(tool: "calc__add")
        XCTAssertEqual(view.uri, Self.view)
        XCTAssertEqual(view.html, Self.html)
        do {
            _ = try await host.readAppView(tool: "calc__nothing")
            XCTFail("a tool the host does not have has no view")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .config, "\(error)")
        }
        let sum = try await host.callTool("calc__add", arguments: ["a": 2, "b": 3])
        XCTAssertEqual(sum.structuredContent, ["sum": 5])
        let methods = await sent.items
        XCTAssertTrue(methods.contains("client sent tools/call"), "the host's middleware wraps its calls: \(methods)")
        XCTAssertTrue(methods.contains("client sent resources/read"), "\(methods)")
        await host.close()
        try await http.close()
    }

    func testAViewIsAUIURI() throws {
        let server = try Server(name: "bad", version: "1")
        XCTAssertThrowsError(try server.addAppView(uri: "https://example.com", html: Self.html)) { error in
            XCTAssertEqual((error as? MCPError)?.kind, .config, "\(error)")
            XCTAssertTrue((error as? MCPError)?.message.contains("ui://") ?? false, "\(error)")
        }
    }
}
