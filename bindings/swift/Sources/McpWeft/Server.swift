import McpWeftNative

/// What a resource handler is asked for: the URI read and, for a template, the values of its
/// variables.
public struct ResourceRequest: Sendable {
    /// The URI being read.
    public let uri: String
    /// The values of the template's variables, in the template's order (empty for a plain
    /// resource).
    public let variables: JSONObject
}

/// An argument a prompt takes.
public struct PromptArgument: Sendable {
    public var name: String
    public var description: String?
    public var required: Bool

    public init(_ name: String, description: String? = nil, required: Bool = false) {
        self.name = name
        self.description = description
        self.required = required
    }
}

/// What a completion handler is asked to complete.
public struct CompletionRequest: Sendable {
    /// The prompt or resource template (`{"type": "ref/prompt", "name"}` or
    /// `{"type": "ref/resource", "uri"}`).
    public let ref: JSONValue
    /// The name of the argument being completed.
    public let argument: String
    /// What the user typed so far.
    public let value: String
    /// The values of the arguments already chosen.
    public let arguments: [String: String]
}

/// An MCP server whose tools, resources and prompts are Swift closures.
///
/// Handlers are `async throws` closures that take the arguments (as `JSONValue` or decoded
/// into your `Decodable` type) and a `Context`. What a tool returns becomes its result: a
/// string is a text block, an object is also the structured content, an encodable value is
/// encoded first, and a value shaped as a `CallToolResult` passes as it is. A thrown error
/// becomes an `isError` result, except an `MCPError` with a JSON-RPC code, which answers
/// with that error.
public final class Server: Sendable {
    let native: NativeServer

    /// Creates a server named `name`; `settings` takes the other keys of the server's
    /// description (`title`, `instructions`, `pageSize`, `logLevel`, `capabilities`,
    /// `tasks`, ...).
    public init(name: String, version: String, settings: JSONObject = [:]) throws {
        var spec = settings
        spec["name"] = .string(name)
        spec["version"] = .string(version)
        let text = JSONValue.object(spec).jsonText
        native = try callNative { try NativeServer(spec: text) }
    }

    /// Registers a tool taking and returning JSON values; `descriptor` adds keys of the
    /// `Tool` object (`title`, `annotations`, `outputSchema`, `_meta`, `execution`, ...). A tool
    /// of the same name throws an `MCPError` of kind `.config` unless `replace` is true.
    ///
    /// `app` binds the tool to the app view at that `ui://` URI (MCP Apps, see `addAppView`):
    /// hosts that render apps show its results there. `visibility` says who may call it: the
    /// model, the view, or both (the default); a tool only the view may call is not listed to
    /// clients without Apps.
    public func addTool(
        _ name: String, description: String? = nil, inputSchema: JSONValue? = nil, app: String? = nil,
        visibility: [ToolVisibility]? = nil, descriptor: JSONObject = [:], replace: Bool = false,
        handler: @escaping @Sendable (JSONValue, Context) async throws -> JSONValue
    ) throws {
        var tool = descriptor
        tool["name"] = .string(name)
        tool["description"] = description.map(JSONValue.string)
        tool["inputSchema"] = inputSchema
        tool["app"] = app.map(JSONValue.string)
        tool["visibility"] = visibility.map { .array($0.map { .string($0.rawValue) }) }
        let text = JSONValue.object(tool).jsonText
        try callNative { try native.addTool(descriptor: text, handler: HandlerBox(handler), replace: replace) }
    }

    /// Registers a tool whose arguments are decoded into `Input` and whose result is encoded
    /// from `Output`.
    public func addTool<Input: Decodable, Output: Encodable>(
        _ name: String, description: String? = nil, inputSchema: JSONValue? = nil, app: String? = nil,
        visibility: [ToolVisibility]? = nil, descriptor: JSONObject = [:], replace: Bool = false,
        handler: @escaping @Sendable (Input, Context) async throws -> Output
    ) throws {
        try addTool(
            name, description: description, inputSchema: inputSchema, app: app, visibility: visibility,
            descriptor: descriptor, replace: replace, handler: typed(handler))
    }

    /// Serves the HTML view of an app (MCP Apps) at `uri`, a `ui://` URI, which hosts that
    /// render apps show in a sandboxed frame; bind tools to it with `addTool(_:app:)`.
    ///
    /// `csp` lists the origins the view may reach, `permissions` the browser features it asks
    /// for, `domain` a dedicated origin in the host's format and `prefersBorder` whether the
    /// host draws a border; `name` defaults to the URI. The server then declares the Apps
    /// extension, and clients without it see neither the view nor the tools only a view may
    /// call. A URI of another scheme, or one already served, throws an `MCPError` of kind
    /// `.config`.
    public func addAppView(
        uri: String, html: String, name: String? = nil, csp: AppCSP? = nil, permissions: AppPermissions = [],
        domain: String? = nil, prefersBorder: Bool? = nil
    ) throws {
        let descriptor = JSONObject(compacting: [
            "uri": .string(uri), "name": .string(name ?? uri), "html": .string(html),
            "csp": try csp.map { try JSONValue(encoding: $0) },
            "permissions": permissions.isEmpty ? nil : permissions.json, "domain": domain.map(JSONValue.string),
            "prefersBorder": prefersBorder.map(JSONValue.bool),
        ])
        let text = JSONValue.object(descriptor).jsonText
        try callNative { try native.addAppView(descriptor: text) }
    }

    /// Adds `middleware` around every message of the sessions started from now on, inside
    /// those already added: a built-in one (`.timing`, `.rateLimit(perSecond:)`, `.cache()`,
    /// `.openTelemetry`) or `Middleware { message, next in ... }`. A built-in one with bad
    /// settings throws an `MCPError` of kind `.invalidInput`.
    public func use(_ middleware: Middleware) throws {
        switch middleware.kind {
        case .swift(let body): use(body)
        case .builtin(let spec):
            let text = spec.jsonText
            try callNative { try native.addBuiltinMiddleware(spec: text) }
        }
    }

    /// Adds a middleware written in Swift around every message of the sessions started from
    /// now on, inside those already added (see `Middleware`):
    ///
    /// ```swift
    /// server.use { message, next in
    ///     guard message.target != "secret" else { throw MCPError(code: -32001, message: "no") }
    ///     return try await next(message)
    /// }
    /// ```
    public func use(_ middleware: @escaping Middleware.Body) {
        native.addMiddleware(middleware: MiddlewareBox(middleware))
    }

    /// Registers a resource; the handler returns its contents (a string is text, an object
    /// with `text` or `blob` one contents item, an array several). A resource at the same URI
    /// throws an `MCPError` of kind `.config` unless `replace` is true.
    public func addResource(
        _ uri: String, name: String, description: String? = nil, mimeType: String? = nil,
        descriptor: JSONObject = [:], replace: Bool = false,
        handler: @escaping @Sendable (ResourceRequest, Context) async throws -> JSONValue
    ) throws {
        let text = resourceDescriptor(descriptor, "uri", uri, name, description, mimeType)
        try callNative { try native.addResource(descriptor: text, handler: resourceHandler(handler), replace: replace) }
    }

    /// Registers a resource template such as `file:///{path}`; the handler gets the values of
    /// its variables. A template with the same URI template throws an `MCPError` of kind
    /// `.config` unless `replace` is true.
    ///
    /// `list`, when given, lists the resources the template stands for in `resources/list`
    /// (after the fixed resources), as the TypeScript SDK's `ResourceTemplate` `list` callback
    /// does: it returns an array of `Resource` objects (`uri`, `name`, ...) or
    /// `{"resources": [...]}`, and each listed resource takes the template's `description`,
    /// `mimeType` and other metadata where it sets none.
    public func addResourceTemplate(
        _ uriTemplate: String, name: String, description: String? = nil, mimeType: String? = nil,
        descriptor: JSONObject = [:], replace: Bool = false,
        list: (@Sendable (Context) async throws -> JSONValue)? = nil,
        handler: @escaping @Sendable (ResourceRequest, Context) async throws -> JSONValue
    ) throws {
        let text = resourceDescriptor(descriptor, "uriTemplate", uriTemplate, name, description, mimeType)
        let read = resourceHandler(handler)
        guard let list else {
            try callNative { try native.addResourceTemplate(descriptor: text, handler: read, replace: replace) }
            return
        }
        let lister = HandlerBox { _, context in try await list(context) }
        try callNative {
            try native.addListedResourceTemplate(descriptor: text, handler: read, list: lister, replace: replace)
        }
    }

    /// Registers a prompt; the handler gets the arguments and returns the messages (a string
    /// is one user message, an array several, an object with `messages` the whole result). A
    /// prompt of the same name throws an `MCPError` of kind `.config` unless `replace` is true.
    public func addPrompt(
        _ name: String, description: String? = nil, arguments: [PromptArgument] = [],
        descriptor: JSONObject = [:], replace: Bool = false,
        handler: @escaping @Sendable ([String: String], Context) async throws -> JSONValue
    ) throws {
        var prompt = descriptor
        prompt["name"] = .string(name)
        prompt["description"] = description.map(JSONValue.string)
        prompt["arguments"] = .array(arguments.map { argument in
            return JSONValue.object(JSONObject(compacting: [
                "name": .string(argument.name), "description": argument.description.map(JSONValue.string),
                "required": .bool(argument.required),
            ]))
        })
        let text = JSONValue.object(prompt).jsonText
        let box = HandlerBox { payload, context in
            try await handler(payload.objectValue?.dictionary.compactMapValues(\.stringValue) ?? [:], context)
        }
        try callNative { try native.addPrompt(descriptor: text, handler: box, replace: replace) }
    }

    /// Sets the answer to `completion/complete`; the handler returns the values (an array of
    /// strings, of which the first 100 are sent).
    public func setCompletion(_ handler: @escaping @Sendable (CompletionRequest, Context) async throws -> JSONValue) {
        native.setCompletion(handler: HandlerBox { params, context in
            let request = CompletionRequest(
                ref: params["ref"] ?? .null, argument: params["argument"]?["name"]?.stringValue ?? "",
                value: params["argument"]?["value"]?.stringValue ?? "",
                arguments: params["context"]?["arguments"]?.objectValue?.dictionary.compactMapValues(\.stringValue) ?? [:])
            return try await handler(request, context)
        })
    }

    /// Sets the handler that hears that a client's roots changed; its context can ask that
    /// client for its roots. It can be set once.
    public func onRootsChanged(_ handler: @escaping @Sendable (Context) async throws -> Void) throws {
        try callNative {
            try native.onRootsChanged(handler: HandlerBox { _, context in
                try await handler(context)
                return .null
            })
        }
    }

    /// Removes a tool, returning whether it existed; clients hear that the list changed.
    @discardableResult
    public func removeTool(_ name: String) -> Bool { native.removeTool(name: name) }

    /// Removes a resource, returning whether it existed.
    @discardableResult
    public func removeResource(_ uri: String) -> Bool { native.removeResource(uri: uri) }

    /// Removes a resource template, returning whether it existed.
    @discardableResult
    public func removeResourceTemplate(_ uriTemplate: String) -> Bool {
        native.removeResourceTemplate(uriTemplate: uriTemplate)
    }

    /// Removes a prompt, returning whether it existed.
    @discardableResult
    public func removePrompt(_ name: String) -> Bool { native.removePrompt(name: name) }

    /// Serves a skill of the skills extension (`io.modelcontextprotocol/skills`): `skillMD` is
    /// the text of its `SKILL.md`, whose YAML frontmatter gives its `name` and `description`,
    /// and `files` maps each supporting file's path within the skill (such as
    /// `references/FORMS.md`) to its text. Each file is served as a resource under
    /// `skill://<name>/`, and 2026-07-28 clients see the extension in the server's
    /// capabilities. A skill of the same name throws an `MCPError` whose `kind` is
    /// `MCPError.Kind.config` unless `replace` is true, which also stops serving the old skill's
    /// files that the new one lacks; so does a bad name, frontmatter or path.
    public func addSkill(_ skillMD: String, files: [String: String] = [:], replace: Bool = false) throws {
        let descriptor: JSONValue = .object([
            "skillMd": .string(skillMD),
            "files": .object(JSONObject(files.mapValues(JSONValue.string))),
        ])
        try callNative { try native.addSkill(descriptor: descriptor.jsonText, replace: replace) }
    }

    /// Tells the clients subscribed to `uri` that the resource changed.
    public func notifyResourceUpdated(_ uri: String) { native.notifyResourceUpdated(uri: uri) }

    /// Sends a log message to every client whose level lets it through.
    public func log(_ level: LogLevel, _ data: JSONValue, logger: String? = nil) throws {
        try callNative { try native.log(level: level.rawValue, data: data.jsonText, logger: logger) }
    }

    /// The capabilities the server declares now.
    public var capabilities: JSONValue { (try? JSONValue(parsing: native.capabilities())) ?? [:] }

    /// Serves one client over this process's stdin and stdout, until it leaves or the
    /// calling task is cancelled.
    public func serveStdio() async throws {
        try await awaitNative { cancel in try await native.serveStdio(cancel: cancel) }
    }

    /// Serves Streamable HTTP at `http://host:port/mcp` and returns the running server;
    /// `port` 0 picks a free port. `options` takes the other HTTP settings (`allowedHosts`,
    /// `allowedOrigins`, `jsonResponse`, `stateful`, ...).
    ///
    /// `cluster` shares the sessions through Redis with the other processes of a cluster
    /// (see `ClusterOptions`).
    ///
    /// `auth` protects the server with OAuth 2.1: every request needs a bearer token, checked
    /// by `auth.jwt` or by `verifier`, which returns the caller's identity, or `nil` (or
    /// throws) to refuse the token. Handlers read the identity as `Context.auth`.
    public func serveHTTP(
        host: String = "127.0.0.1", port: Int = 8000, path: String = "/mcp", options: JSONObject = [:],
        cluster: ClusterOptions? = nil, auth: ServerAuth? = nil, verifier: TokenVerifier? = nil
    ) async throws -> HTTPServer {
        var settings = options
        settings["host"] = .string(host)
        settings["port"] = .int(port)
        settings["path"] = .string(path)
        if let cluster = try cluster.json() { settings["cluster"] = cluster }
        if let auth = try auth.json() { settings["auth"] = auth }
        let text = JSONValue.object(settings).jsonText
        if let verifier {
            let box = verifierBox(verifier)
            return HTTPServer(
                try await awaitNative { _ in try await native.serveHttpWithVerifier(options: text, verifier: box) })
        }
        return HTTPServer(try await awaitNative { _ in try await native.serveHttp(options: text) })
    }

    /// Returns an endpoint that answers the HTTP requests a host application's own HTTP
    /// server (Vapor, Hummingbird, ...) routes to it, so that the application serves MCP
    /// beside its other routes; the endpoint does all the protocol work (sessions, SSE
    /// streams, host and origin checks, authorization). `path` is the path the application
    /// routes to it; requests for any other path get a 404 that says which path it serves.
    /// `options` takes the other settings of `serveHTTP` (`allowedHosts`, `allowedOrigins`,
    /// `jsonResponse`, `stateful`, ...; hosts and origins default to the loopback names on any
    /// port), and `auth` and `verifier` protect it as they protect `serveHTTP`.
    public func httpEndpoint(
        path: String = "/mcp", options: JSONObject = [:], auth: ServerAuth? = nil, verifier: TokenVerifier? = nil
    ) throws -> HTTPEndpoint {
        var settings = options
        settings["path"] = .string(path)
        if let auth = try auth.json() { settings["auth"] = auth }
        let text = JSONValue.object(settings).jsonText
        if let verifier {
            let box = verifierBox(verifier)
            return HTTPEndpoint(try callNative { try native.httpEndpointWithVerifier(options: text, verifier: box) })
        }
        return HTTPEndpoint(try callNative { try native.httpEndpoint(options: text) })
    }

    private func resourceDescriptor(
        _ descriptor: JSONObject, _ key: String, _ uri: String, _ name: String, _ description: String?,
        _ mimeType: String?
    ) -> String {
        var resource = descriptor
        resource[key] = .string(uri)
        resource["name"] = .string(name)
        resource["description"] = description.map(JSONValue.string)
        resource["mimeType"] = mimeType.map(JSONValue.string)
        return JSONValue.object(resource).jsonText
    }

    private func resourceHandler(_ handler: @escaping @Sendable (ResourceRequest, Context) async throws -> JSONValue)
        -> HandlerBox
    {
        HandlerBox { payload, context in
            let request = ResourceRequest(
                uri: payload["uri"]?.stringValue ?? "", variables: payload["variables"]?.objectValue ?? [:])
            return try await handler(request, context)
        }
    }
}

/// A running Streamable HTTP server.
public final class HTTPServer: Sendable {
    let native: NativeHttpServer

    init(_ native: NativeHttpServer) {
        self.native = native
    }

    /// The URL of the MCP endpoint, such as `http://127.0.0.1:8000/mcp`.
    public var url: String { native.url() }

    /// Stops the server and ends its sessions; closing again does nothing.
    public func close() async throws {
        try await awaitNative { _ in try await native.close() }
    }

    /// Returns when the server is closed, or throws when the calling task is cancelled.
    public func wait() async throws {
        try await awaitNative { cancel in try await native.wait(cancel: cancel) }
    }
}
