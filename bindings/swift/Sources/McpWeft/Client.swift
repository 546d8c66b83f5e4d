import McpWeftNative

/// The closures a client answers the server's requests with; the client declares exactly the
/// capabilities they imply.
public struct ClientHandlers: Sendable {
    /// Answers `sampling/createMessage`: the request's params in, a `CreateMessageResult` out.
    public var sampling: (@Sendable (JSONValue, Context) async throws -> JSONValue)?
    /// Declares sampling with tools.
    public var samplingTools: Bool
    /// Answers `elicitation/create`: the request's params in, an `ElicitResult` out.
    public var elicitation: (@Sendable (JSONValue, Context) async throws -> JSONValue)?
    /// Declares form-mode elicitation.
    public var elicitationForm: Bool
    /// Declares URL-mode elicitation.
    public var elicitationURL: Bool
    /// Answers `roots/list` with the roots (an array of `{"uri", "name"}`) or the whole result.
    public var roots: (@Sendable (Context) async throws -> JSONValue)?
    /// Hears every notification from the server: its method and params.
    public var notification: (@Sendable (String, JSONValue) async -> Void)?
    /// Logs the user in to a protected HTTP server (`Client.http` with `auth`): shows the
    /// authorization URL and returns the URL the authorization server redirected to.
    public var authorizer: Authorizer?
    /// Keeps the tokens of protected HTTP servers between runs (in memory by default).
    public var tokenStore: (any TokenStore)?
    /// Hears, once, that the connection ended: `{"reason": "closed", "message"}` when this side
    /// closed it, or `{"reason": "disconnected", "message", "exitCode", "signal", "stderr"}` when
    /// the server ended it (`message` is that of the `.transportClosed` error of later calls).
    public var onClose: (@Sendable (JSONValue) async -> Void)?

    public init(
        sampling: (@Sendable (JSONValue, Context) async throws -> JSONValue)? = nil, samplingTools: Bool = false,
        elicitation: (@Sendable (JSONValue, Context) async throws -> JSONValue)? = nil, elicitationForm: Bool = true,
        elicitationURL: Bool = false, roots: (@Sendable (Context) async throws -> JSONValue)? = nil,
        notification: (@Sendable (String, JSONValue) async -> Void)? = nil, authorizer: Authorizer? = nil,
        tokenStore: (any TokenStore)? = nil, onClose: (@Sendable (JSONValue) async -> Void)? = nil
    ) {
        self.sampling = sampling
        self.samplingTools = samplingTools
        self.elicitation = elicitation
        self.elicitationForm = elicitationForm
        self.elicitationURL = elicitationURL
        self.roots = roots
        self.notification = notification
        self.authorizer = authorizer
        self.tokenStore = tokenStore
        self.onClose = onClose
    }

    var native: NativeClientHandlers {
        NativeClientHandlers(
            sampling: sampling.map { HandlerBox($0) }, samplingTools: samplingTools,
            elicitation: elicitation.map { HandlerBox($0) }, elicitationForm: elicitationForm,
            elicitationUrl: elicitationURL,
            roots: roots.map { roots in HandlerBox { _, context in try await roots(context) } },
            notification: notification.map { hear in
                HandlerBox { payload, _ in
                    await hear(payload["method"]?.stringValue ?? "", payload["params"] ?? .null)
                    return .null
                }
            },
            authorizer: authorizer.map(authorizerBox), tokenStore: tokenStore.map(tokenStoreBox),
            close: onClose.map { hear in
                HandlerBox { payload, _ in
                    await hear(payload)
                    return .null
                }
            })
    }
}

/// The result of a tool call.
public struct CallToolResult: Sendable, Equatable {
    /// The content blocks.
    public let content: [JSONValue]
    /// The structured content, when the tool returned some.
    public let structuredContent: JSONValue?
    /// Whether the tool failed (the content says why).
    public let isError: Bool
    /// The whole result as it came.
    public let raw: JSONValue

    init(_ raw: JSONValue) {
        self.raw = raw
        content = raw["content"]?.arrayValue ?? []
        structuredContent = raw["structuredContent"]
        isError = raw["isError"]?.boolValue ?? false
    }

    /// The text of the text blocks, joined.
    public var text: String {
        content.compactMap { $0["type"] == "text" ? $0["text"]?.stringValue : nil }.joined()
    }

    /// Decodes the structured content into `type`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try (structuredContent ?? .null).decode(type)
    }
}

/// A connected MCP client.
///
/// Cancelling the Swift task that awaits a request cancels the request (the server hears
/// `notifications/cancelled`).
public final class Client: Sendable {
    let native: NativeClient

    init(_ native: NativeClient) {
        self.native = native
    }

    /// Spawns `command` and connects to it over its stdin and stdout. `options` takes the
    /// client's settings (`name`, `version`, `protocolVersion`, `requestTimeoutMs`, ...).
    public static func stdio(
        command: String, arguments: [String] = [], environment: [String: String]? = nil,
        currentDirectory: String? = nil, options: [String: JSONValue] = [:], handlers: ClientHandlers = .init()
    ) async throws -> Client {
        let transport: [String: JSONValue?] = [
            "type": "stdio", "command": .string(command), "args": .array(arguments.map(JSONValue.string)),
            "env": environment.map { .object($0.mapValues(JSONValue.string)) },
            "cwd": currentDirectory.map(JSONValue.string),
        ]
        return try await connect(transport.compacted(), options, handlers)
    }

    /// Connects to a Streamable HTTP server at `url`, sending `headers` with every request.
    ///
    /// `auth` logs in to a protected server with OAuth 2.1 when it answers `401`, through
    /// `handlers.authorizer` (a user's login without one throws an `.invalidInput` error) and
    /// keeping the tokens in `handlers.tokenStore`.
    public static func http(
        url: String, headers: [String: String] = [:], auth: ClientAuth? = nil, options: [String: JSONValue] = [:],
        handlers: ClientHandlers = .init()
    ) async throws -> Client {
        let transport: [String: JSONValue?] = [
            "type": "http", "url": .string(url), "headers": .object(headers.mapValues(JSONValue.string)),
            "auth": try auth.json(),
        ]
        return try await connect(transport.compacted(), options, handlers)
    }

    /// Connects to `server` in this process over an in-memory transport (for tests).
    public static func inMemory(
        server: Server, options: [String: JSONValue] = [:], handlers: ClientHandlers = .init()
    ) async throws -> Client {
        let text = JSONValue.object(options).jsonText
        return Client(
            try await awaitNative { _ in
                try await nativeConnectMemory(server: server.native, options: text, handlers: handlers.native)
            })
    }

    private static func connect(
        _ transport: [String: JSONValue], _ options: [String: JSONValue], _ handlers: ClientHandlers
    ) async throws -> Client {
        let transport = JSONValue.object(transport).jsonText
        let options = JSONValue.object(options).jsonText
        return Client(
            try await awaitNative { cancel in
                try await nativeConnect(transport: transport, options: options, handlers: handlers.native, cancel: cancel)
            })
    }

    /// The server's `initialize` result: `serverInfo`, `capabilities`, `instructions`.
    public var serverInfo: JSONValue { (try? JSONValue(parsing: native.serverInfo())) ?? .null }

    /// The negotiated protocol version.
    public var protocolVersion: String { native.protocolVersion() }

    /// Sends any request and returns its result. `timeout` overrides the client's default,
    /// and `onProgress` asks for progress and hears each `notifications/progress` params.
    public func request(
        _ method: String, params: JSONValue = [:], timeout: Duration? = nil,
        onProgress: (@Sendable (JSONValue) -> Void)? = nil
    ) async throws -> JSONValue {
        let params = params.jsonText
        return try await awaitNative { cancel in
            let options = callOptions(timeout, onProgress, cancel)
            return try JSONValue(parsing: await native.request(method: method, params: params, options: options))
        }
    }

    /// Calls a tool.
    public func callTool(
        name: String, arguments: JSONValue = [:], timeout: Duration? = nil,
        onProgress: (@Sendable (JSONValue) -> Void)? = nil
    ) async throws -> CallToolResult {
        let arguments = arguments.jsonText
        return CallToolResult(
            try await awaitNative { cancel in
                let options = callOptions(timeout, onProgress, cancel)
                return try JSONValue(parsing: await native.callTool(name: name, arguments: arguments, options: options))
            })
    }

    /// Calls a tool with arguments encoded from an `Encodable` value.
    public func callTool<Arguments: Encodable>(
        name: String, arguments: Arguments, timeout: Duration? = nil,
        onProgress: (@Sendable (JSONValue) -> Void)? = nil
    ) async throws -> CallToolResult {
        try await callTool(name: name, arguments: JSONValue(encoding: arguments), timeout: timeout, onProgress: onProgress)
    }

    /// Lists every tool, following the pages.
    public func listTools() async throws -> [JSONValue] { try await listAll("tools") }

    /// Lists every resource.
    public func listResources() async throws -> [JSONValue] { try await listAll("resources") }

    /// Lists every resource template.
    public func listResourceTemplates() async throws -> [JSONValue] { try await listAll("resourceTemplates") }

    /// Lists every prompt.
    public func listPrompts() async throws -> [JSONValue] { try await listAll("prompts") }

    /// Lists one page of `kind` (`tools`, `resources`, `resourceTemplates`, `prompts` or
    /// `tasks`); the result holds the items and `nextCursor`.
    public func list(_ kind: String, cursor: String? = nil) async throws -> JSONValue {
        try await awaitNative { cancel in try JSONValue(parsing: await native.list(kind: kind, cursor: cursor, cancel: cancel)) }
    }

    private func listAll(_ kind: String) async throws -> [JSONValue] {
        try await awaitNative { cancel in
            try JSONValue(parsing: await native.listAll(kind: kind, cancel: cancel)).arrayValue ?? []
        }
    }

    /// Reads a resource; the result holds its `contents`.
    public func readResource(uri: String) async throws -> JSONValue {
        try await request("resources/read", params: ["uri": .string(uri)])
    }

    /// Gets a prompt with its arguments; the result holds its `messages`.
    public func getPrompt(name: String, arguments: [String: String] = [:]) async throws -> JSONValue {
        try await request("prompts/get", params: ["name": .string(name), "arguments": .object(arguments.mapValues(JSONValue.string))])
    }

    /// Asks the server to complete the argument `argument` of `ref` (a prompt or resource
    /// template reference) from `value`; the result holds `completion.values`.
    public func complete(
        ref: JSONValue, argument: String, value: String, arguments: [String: String] = [:]
    ) async throws -> JSONValue {
        var params: JSONValue = ["ref": ref, "argument": ["name": .string(argument), "value": .string(value)]]
        if !arguments.isEmpty, case .object(var members) = params {
            members["context"] = ["arguments": .object(arguments.mapValues(JSONValue.string))]
            params = .object(members)
        }
        return try await request("completion/complete", params: params)
    }

    /// Sets the level of the log messages the server sends.
    public func setLoggingLevel(_ level: LogLevel) async throws {
        _ = try await request("logging/setLevel", params: ["level": .string(level.rawValue)])
    }

    /// Sends a notification to the server.
    public func notify(_ method: String, params: JSONValue = [:]) throws {
        let text = params.jsonText
        try callNative { try native.notify(method: method, params: text) }
    }

    /// Tells the server that the client's roots changed.
    public func notifyRootsChanged() throws {
        try callNative { try native.notifyRootsChanged() }
    }

    /// Closes the connection (a stdio server is shut down, an HTTP session deleted).
    public func close() async {
        await native.close()
    }

    private func callOptions(
        _ timeout: Duration?, _ onProgress: (@Sendable (JSONValue) -> Void)?, _ cancel: NativeCancelHandle
    ) -> NativeCallOptions {
        let ms = timeout.map { UInt64($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
        return NativeCallOptions(
            timeoutMs: ms, progress: onProgress.map { ListenerBox($0) }, task: nil, meta: nil, cancel: cancel)
    }
}
