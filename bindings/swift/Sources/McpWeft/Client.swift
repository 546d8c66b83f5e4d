#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
    /// Hears the server's log messages (`notifications/message` params: `level`, `logger`,
    /// `data`) at or above the level set with `Client.setLoggingLevel`.
    public var logging: (@Sendable (JSONValue) async -> Void)?
    /// Hears that a resource subscribed to with `Client.subscribe` changed: its URI.
    public var resourceUpdated: (@Sendable (String) async -> Void)?
    /// Hears that a list of the server changed: the method of the notification
    /// (`notifications/tools/list_changed`, `.../prompts/...` or `.../resources/...`). A
    /// 2026-07-28 server is asked for these on a `subscriptions/listen` stream when the client
    /// connects with any notification closure.
    public var listChanged: (@Sendable (String) async -> Void)?
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
        notification: (@Sendable (String, JSONValue) async -> Void)? = nil,
        logging: (@Sendable (JSONValue) async -> Void)? = nil,
        resourceUpdated: (@Sendable (String) async -> Void)? = nil,
        listChanged: (@Sendable (String) async -> Void)? = nil, authorizer: Authorizer? = nil,
        tokenStore: (any TokenStore)? = nil, onClose: (@Sendable (JSONValue) async -> Void)? = nil
    ) {
        self.sampling = sampling
        self.samplingTools = samplingTools
        self.elicitation = elicitation
        self.elicitationForm = elicitationForm
        self.elicitationURL = elicitationURL
        self.roots = roots
        self.notification = notification
        self.logging = logging
        self.resourceUpdated = resourceUpdated
        self.listChanged = listChanged
        self.authorizer = authorizer
        self.tokenStore = tokenStore
        self.onClose = onClose
    }

    /// The handlers and `middleware` as the native layer takes them.
    func native(_ middleware: [Middleware]) -> NativeClientHandlers {
        NativeClientHandlers(
            sampling: sampling.map { HandlerBox($0) }, samplingTools: samplingTools,
            elicitation: elicitation.map { HandlerBox($0) }, elicitationForm: elicitationForm,
            elicitationUrl: elicitationURL,
            roots: roots.map { roots in HandlerBox { _, context in try await roots(context) } },
            notification: listener,
            authorizer: authorizer.map(authorizerBox), tokenStore: tokenStore.map(tokenStoreBox),
            close: onClose.map { hear in
                HandlerBox { payload, _ in
                    await hear(payload)
                    return .null
                }
            }, middleware: middleware.map(\.native))
    }
}

extension ClientHandlers {
    /// The notifications the typed closures hear, by method.
    static let listChangedMethods: Set<String> = [
        "notifications/tools/list_changed", "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
    ]

    /// The one native notification handler, which hands each notification to the closures
    /// that hear it; `nil` when there are none.
    var listener: HandlerBox? {
        if notification == nil && logging == nil && resourceUpdated == nil && listChanged == nil { return nil }
        let (all, logging, updated, changed) = (notification, logging, resourceUpdated, listChanged)
        return HandlerBox { payload, _ in
            let method = payload["method"]?.stringValue ?? ""
            let params = payload["params"] ?? .null
            switch method {
            case "notifications/message": await logging?(params)
            case "notifications/resources/updated": await updated?(params["uri"]?.stringValue ?? "")
            case _ where Self.listChangedMethods.contains(method): await changed?(method)
            default: break
            }
            await all?(method, params)
            return .null
        }
    }
}

/// The options of one request: its time-out, task augmentation and `_meta`.
struct CallOptions: Sendable {
    /// The time-out; the client's default when `nil`.
    var timeout: Duration?
    /// Sends the request as a task (experimental) with this task metadata.
    var task: JSONValue?
    /// Entries added to the request's `_meta`.
    var meta: JSONValue?

    init(timeout: Duration? = nil, task: JSONValue? = nil, meta: JSONValue? = nil) {
        self.timeout = timeout
        self.task = task
        self.meta = meta
    }

    /// The JSON text of the options as the bridge reads them; the bridge checks every value.
    var jsonText: String {
        let ms = timeout.map { JSONValue.double(Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15) }
        return JSONValue.object(JSONObject(compacting: ["timeoutMs": ms, "task": task, "meta": meta])).jsonText
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

    /// Reads a `CallToolResult` object, such as `Client.taskResult(_:)` returns for a tool's
    /// task.
    public init(_ raw: JSONValue) {
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
    ///
    /// `apps` declares MCP Apps: the client renders app views (`readAppView(_:)`), so servers
    /// list their views and the tools only a view may call. `middleware` wraps every message
    /// the client sends and receives, outermost first (see `Middleware`).
    public static func stdio(
        command: String, arguments: [String] = [], environment: [String: String]? = nil,
        currentDirectory: String? = nil, options: JSONObject = [:], apps: Bool = false,
        middleware: [Middleware] = [], handlers: ClientHandlers = .init()
    ) async throws -> Client {
        let transport = JSONObject(compacting: [
            "type": "stdio", "command": .string(command), "args": .array(arguments.map(JSONValue.string)),
            "env": environment.map { .object(JSONObject($0.mapValues(JSONValue.string))) },
            "cwd": currentDirectory.map(JSONValue.string),
        ])
        return try await connect(transport, clientOptions(options, apps), handlers.native(middleware))
    }

    /// Connects to a Streamable HTTP server at `url`, sending `headers` with every request,
    /// and `Authorization: Bearer <bearerToken>` when there is a token; `apps` and
    /// `middleware` as for `stdio`.
    ///
    /// `auth` logs in to a protected server with OAuth 2.1 when it answers `401`, through
    /// `handlers.authorizer` (a user's login without one throws an `.invalidInput` error) and
    /// keeping the tokens in `handlers.tokenStore`; machine clients give credentials in `auth`
    /// instead (`clientCredentials`, `identityAssertion` or `workloadIdentity`).
    public static func http(
        url: String, headers: [String: String] = [:], bearerToken: String? = nil, auth: ClientAuth? = nil,
        options: JSONObject = [:], apps: Bool = false, middleware: [Middleware] = [],
        handlers: ClientHandlers = .init()
    ) async throws -> Client {
        let transport = JSONObject(compacting: [
            "type": "http", "url": .string(url), "headers": .object(JSONObject(headers.mapValues(JSONValue.string))),
            "bearerToken": bearerToken.map(JSONValue.string), "auth": try auth.json(),
        ])
        return try await connect(transport, clientOptions(options, apps), handlers.native(middleware))
    }

    /// Connects to `server` in this process over an in-memory transport (for tests); `apps` and
    /// `middleware` as for `stdio`.
    public static func inMemory(
        server: Server, options: JSONObject = [:], apps: Bool = false, middleware: [Middleware] = [],
        handlers: ClientHandlers = .init()
    ) async throws -> Client {
        let text = clientOptions(options, apps)
        let handlers = handlers.native(middleware)
        return Client(
            try await awaitNative { _ in
                try await nativeConnectMemory(server: server.native, options: text, handlers: handlers)
            })
    }

    private static func connect(
        _ transport: JSONObject, _ options: String, _ handlers: NativeClientHandlers
    ) async throws -> Client {
        let transport = JSONValue.object(transport).jsonText
        return Client(
            try await awaitNative { cancel in
                try await nativeConnect(transport: transport, options: options, handlers: handlers, cancel: cancel)
            })
    }

    /// The server's `initialize` result: `serverInfo`, `capabilities`, `instructions`.
    public var serverInfo: JSONValue { (try? JSONValue(parsing: native.serverInfo())) ?? .null }

    /// The negotiated protocol version.
    public var protocolVersion: String { native.protocolVersion() }

    /// Sends any request and returns its result. `timeout` overrides the client's default,
    /// `onProgress` asks for progress and hears each `notifications/progress` params, `task`
    /// sends it as a task with that metadata and `meta` adds to its `_meta`.
    public func request(
        _ method: String, params: JSONValue = [:], timeout: Duration? = nil, task: JSONValue? = nil,
        meta: JSONValue? = nil, onProgress: (@Sendable (JSONValue) -> Void)? = nil
    ) async throws -> JSONValue {
        let params = params.jsonText
        let options = CallOptions(timeout: timeout, task: task, meta: meta)
        return try await awaitNative { cancel in
            let options = nativeOptions(options, onProgress, cancel)
            return try JSONValue(parsing: await native.request(method: method, params: params, options: options))
        }
    }

    /// Calls a tool. With a `task` (task metadata, such as `["ttl": 60000]`) the tool runs as a
    /// task and the result's `raw` is the created task; `meta` adds to the request's `_meta`.
    public func callTool(
        name: String, arguments: JSONValue = [:], timeout: Duration? = nil, task: JSONValue? = nil,
        meta: JSONValue? = nil, onProgress: (@Sendable (JSONValue) -> Void)? = nil
    ) async throws -> CallToolResult {
        let arguments = arguments.jsonText
        let options = CallOptions(timeout: timeout, task: task, meta: meta)
        return CallToolResult(
            try await awaitNative { cancel in
                let options = nativeOptions(options, onProgress, cancel)
                return try JSONValue(parsing: await native.callTool(name: name, arguments: arguments, options: options))
            })
    }

    /// Calls a tool with arguments encoded from an `Encodable` value.
    public func callTool<Arguments: Encodable>(
        name: String, arguments: Arguments, timeout: Duration? = nil, task: JSONValue? = nil,
        meta: JSONValue? = nil, onProgress: (@Sendable (JSONValue) -> Void)? = nil
    ) async throws -> CallToolResult {
        try await callTool(
            name: name, arguments: JSONValue(encoding: arguments), timeout: timeout, task: task, meta: meta,
            onProgress: onProgress)
    }

    /// Checks that the server answers (a 2026-07-28 server, which has no `ping`, through
    /// `server/discover`).
    public func ping(timeout: Duration? = nil) async throws {
        let options = CallOptions(timeout: timeout)
        try await awaitNative { cancel in try await native.ping(options: nativeOptions(options, nil, cancel)) }
    }

    /// Subscribes to updates of the resource at `uri`; `handlers.resourceUpdated` hears them.
    /// With a 2026-07-28 server the client's `subscriptions/listen` stream carries them, and
    /// this returns once the server acknowledged the resource.
    public func subscribe(uri: String, timeout: Duration? = nil) async throws {
        let options = CallOptions(timeout: timeout)
        try await awaitNative { cancel in
            try await native.subscribe(uri: uri, options: nativeOptions(options, nil, cancel))
        }
    }

    /// Ends the subscription to the resource at `uri`.
    public func unsubscribe(uri: String, timeout: Duration? = nil) async throws {
        let options = CallOptions(timeout: timeout)
        try await awaitNative { cancel in
            try await native.unsubscribe(uri: uri, options: nativeOptions(options, nil, cancel))
        }
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

    /// Reads a resource; the result holds its `contents`. `meta` adds to the request's `_meta`.
    public func readResource(uri: String, timeout: Duration? = nil, meta: JSONValue? = nil) async throws -> JSONValue {
        let options = CallOptions(timeout: timeout, meta: meta)
        return try await awaitNative { cancel in
            try JSONValue(parsing: await native.readResource(uri: uri, options: nativeOptions(options, nil, cancel)))
        }
    }

    /// Reads the app view (MCP Apps) at `uri`, a `ui://` URI that a tool's `_meta.ui` names:
    /// its HTML and how to render it. The client must have connected with `apps: true` for the
    /// server to serve views to it; a resource that is no app view throws an `MCPError` of kind
    /// `.protocol`.
    public func readAppView(_ uri: String) async throws -> AppView {
        AppView(try await awaitNative { cancel in try JSONValue(parsing: await native.readAppView(uri: uri, cancel: cancel)) })
    }

    /// Gets a prompt with its arguments; the result holds its `messages`. `meta` adds to the
    /// request's `_meta`.
    public func getPrompt(
        name: String, arguments: [String: String] = [:], timeout: Duration? = nil, meta: JSONValue? = nil
    ) async throws -> JSONValue {
        let arguments = JSONValue.object(JSONObject(arguments.mapValues(JSONValue.string))).jsonText
        let options = CallOptions(timeout: timeout, meta: meta)
        return try await awaitNative { cancel in
            try JSONValue(
                parsing: await native.getPrompt(
                    name: name, arguments: arguments, options: nativeOptions(options, nil, cancel)))
        }
    }

    /// Asks the server to complete the argument `argument` of `ref` (a prompt or resource
    /// template reference) from `value`; the result holds `completion.values`. `meta` adds to
    /// the request's `_meta`.
    public func complete(
        ref: JSONValue, argument: String, value: String, arguments: [String: String] = [:], timeout: Duration? = nil,
        meta: JSONValue? = nil
    ) async throws -> JSONValue {
        var params: JSONObject = ["ref": ref, "argument": ["name": .string(argument), "value": .string(value)]]
        if !arguments.isEmpty {
            params["context"] = ["arguments": .object(JSONObject(arguments.mapValues(JSONValue.string)))]
        }
        let text = JSONValue.object(params).jsonText
        let options = CallOptions(timeout: timeout, meta: meta)
        return try await awaitNative { cancel in
            try JSONValue(parsing: await native.complete(params: text, options: nativeOptions(options, nil, cancel)))
        }
    }

    /// Sets the lowest level of the log messages the server sends (`handlers.logging` hears
    /// them); a 2026-07-28 server gets the level with every later request.
    public func setLoggingLevel(_ level: LogLevel, timeout: Duration? = nil) async throws {
        let options = CallOptions(timeout: timeout)
        try await awaitNative { cancel in
            try await native.setLoggingLevel(level: level.rawValue, options: nativeOptions(options, nil, cancel))
        }
    }

    /// Returns the current state of the task `id` (`tasks/get`): its `taskId`, `status`,
    /// `statusMessage`, `ttl` and times. `meta` adds to the request's `_meta`.
    public func getTask(_ id: String, timeout: Duration? = nil, meta: JSONValue? = nil) async throws -> JSONValue {
        let options = CallOptions(timeout: timeout, meta: meta)
        return try await awaitNative { cancel in
            try JSONValue(parsing: await native.getTask(taskId: id, options: nativeOptions(options, nil, cancel)))
        }
    }

    /// Waits until the task `id` ends and returns the result of its request (`tasks/result`):
    /// for a tool called with `task`, a `CallToolResult` object (`CallToolResult(_:)` reads it).
    public func taskResult(_ id: String, timeout: Duration? = nil, meta: JSONValue? = nil) async throws -> JSONValue {
        let options = CallOptions(timeout: timeout, meta: meta)
        return try await awaitNative { cancel in
            try JSONValue(parsing: await native.taskResult(taskId: id, options: nativeOptions(options, nil, cancel)))
        }
    }

    /// Cancels the task `id` and returns its final state (`tasks/cancel`).
    public func cancelTask(_ id: String, timeout: Duration? = nil, meta: JSONValue? = nil) async throws -> JSONValue {
        let options = CallOptions(timeout: timeout, meta: meta)
        return try await awaitNative { cancel in
            try JSONValue(parsing: await native.cancelTask(taskId: id, options: nativeOptions(options, nil, cancel)))
        }
    }

    /// Lists every task of this client on the server (`tasks/list`, every page).
    public func listTasks() async throws -> [JSONValue] { try await listAll("tasks") }

    /// Lists the skills the server serves (the `io.modelcontextprotocol/skills` extension,
    /// every page of `skills/list`), reading no skill file: each entry has the `uri` of the
    /// skill's `SKILL.md`, its `frontmatter` and its files (`resources`, each with `uri`,
    /// `digest` and `size`). Throws an `MCPError` of kind `.capabilityMissing` when the server
    /// does not declare the extension.
    public func listSkills() async throws -> [JSONValue] {
        try await awaitNative { cancel in
            try JSONValue(parsing: await native.listSkills(cancel: cancel)).arrayValue ?? []
        }
    }

    /// Loads the skill of `entry` (one of `listSkills()`) when it is used: fetches its
    /// `SKILL.md` and returns `{"entry", "frontmatter", "body"}` once the file matches the
    /// entry's size, digest and every frontmatter field; otherwise throws an `MCPError` of
    /// kind `.protocol`.
    public func loadSkill(_ entry: JSONValue) async throws -> JSONValue {
        let text = entry.jsonText
        return try await awaitNative { cancel in try JSONValue(parsing: await native.loadSkill(entry: text, cancel: cancel)) }
    }

    /// Reads the supporting file `uri` of the skill of `entry`, which must list it, and
    /// returns its bytes once they match the entry's size and digest; otherwise throws an
    /// `MCPError` of kind `.protocol`.
    public func readSkillFile(_ entry: JSONValue, uri: String) async throws -> Data {
        let text = entry.jsonText
        return try await awaitNative { cancel in try await native.readSkillFile(entry: text, uri: uri, cancel: cancel) }
    }

    /// Opens a `subscriptions/listen` stream of a 2026-07-28 server for the notifications
    /// `filter` asks for and returns it once the server acknowledged it (within the client's
    /// request time-out).
    ///
    /// The subscription is an `AsyncSequence` of the stream's notifications (which the
    /// `handlers` hear as well) that ends when the stream ends, and a `for try await` loop
    /// closes the stream when it is left; `acknowledged` tells what the server agreed to send.
    /// An older server sends its notifications unasked and has no such streams: this throws an
    /// `MCPError` of kind `.capabilityMissing`.
    ///
    /// ```swift
    /// for try await n in try await client.listen(SubscriptionFilter(toolsListChanged: true)) {
    ///     print(n.method)  // "notifications/tools/list_changed"
    /// }
    /// ```
    public func listen(_ filter: SubscriptionFilter) async throws -> MCPSubscription {
        let text = filter.json.jsonText
        return MCPSubscription(try await awaitNative { cancel in try await native.listen(filter: text, cancel: cancel) })
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

    private func nativeOptions(
        _ options: CallOptions, _ onProgress: (@Sendable (JSONValue) -> Void)?, _ cancel: NativeCancelHandle
    ) -> NativeCallOptions {
        NativeCallOptions(options: options.jsonText, progress: onProgress.map { ListenerBox($0) }, cancel: cancel)
    }
}

/// The JSON text of a client's or host's options, with `apps` declared when asked for.
func clientOptions(_ options: JSONObject, _ apps: Bool) -> String {
    var options = options
    if apps { options["apps"] = true }
    return JSONValue.object(options).jsonText
}
