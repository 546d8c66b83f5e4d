#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import McpWeftNative

/// The closures a host answers every server's requests with; each is told the name of the
/// server that asked, and the host declares the capabilities they imply.
public struct HostHandlers: Sendable {
    /// Answers `sampling/createMessage`: the server's name and the request's params in, a
    /// `CreateMessageResult` out.
    public var sampling: (@Sendable (String, JSONValue, Context) async throws -> JSONValue)?
    /// Declares sampling with tools.
    public var samplingTools: Bool
    /// Answers `elicitation/create`: the server's name and the request's params in, an
    /// `ElicitResult` out.
    public var elicitation: (@Sendable (String, JSONValue, Context) async throws -> JSONValue)?
    /// Declares form-mode elicitation.
    public var elicitationForm: Bool
    /// Declares URL-mode elicitation.
    public var elicitationURL: Bool
    /// Answers `roots/list` for the server named: the roots (an array of `{"uri", "name"}`)
    /// or the whole result.
    public var roots: (@Sendable (String, Context) async throws -> JSONValue)?
    /// Hears every notification from every server but list changes (`MCPHost.events` tells
    /// those): the server's name, the method and the params.
    public var notification: (@Sendable (String, String, JSONValue) async -> Void)?
    /// Logs the user in to the servers configured with `oauth`, as a client's does; it needs
    /// the host option `redirectUri`, where the authorization server sends the user back.
    public var authorizer: Authorizer?
    /// Keeps every server's tokens between runs, under its resource URL (in memory when
    /// `nil`).
    public var tokenStore: (any TokenStore)?

    public init(
        sampling: (@Sendable (String, JSONValue, Context) async throws -> JSONValue)? = nil,
        samplingTools: Bool = false,
        elicitation: (@Sendable (String, JSONValue, Context) async throws -> JSONValue)? = nil,
        elicitationForm: Bool = true, elicitationURL: Bool = false,
        roots: (@Sendable (String, Context) async throws -> JSONValue)? = nil,
        notification: (@Sendable (String, String, JSONValue) async -> Void)? = nil,
        authorizer: Authorizer? = nil, tokenStore: (any TokenStore)? = nil
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
    }

    /// The handlers and `middleware` as the native layer takes them.
    func native(_ middleware: [Middleware]) -> NativeClientHandlers {
        /// A handler of `{"server", "params"}` payloads.
        func request(_ body: @escaping @Sendable (String, JSONValue, Context) async throws -> JSONValue) -> HandlerBox {
            HandlerBox { payload, context in
                try await body(payload["server"]?.stringValue ?? "", payload["params"] ?? .null, context)
            }
        }
        return NativeClientHandlers(
            sampling: sampling.map(request), samplingTools: samplingTools,
            elicitation: elicitation.map(request), elicitationForm: elicitationForm,
            elicitationUrl: elicitationURL,
            roots: roots.map { roots in
                HandlerBox { payload, context in try await roots(payload["server"]?.stringValue ?? "", context) }
            },
            notification: notification.map { hear in
                HandlerBox { payload, _ in
                    await hear(
                        payload["server"]?.stringValue ?? "", payload["method"]?.stringValue ?? "",
                        payload["params"] ?? .null)
                    return .null
                }
            },
            authorizer: authorizer.map(authorizerBox), tokenStore: tokenStore.map(tokenStoreBox), close: nil,
            middleware: middleware.map(\.native))
    }
}

/// The state of one server of a host.
public enum ServerState: Sendable, Equatable {
    /// The configuration disables it.
    case disabled
    /// The host is connecting to it.
    case connecting
    /// It is connected; its features are in the host's lists.
    case ready
    /// It could not connect or went away: why, and the end of what it wrote to stderr.
    case failed(reason: String, stderr: String?)
    /// The host closed it.
    case closed
    /// A state this version does not know, by name.
    case other(String)

    init(_ json: JSONValue) {
        switch json["state"]?.stringValue ?? "" {
        case "disabled": self = .disabled
        case "connecting": self = .connecting
        case "ready": self = .ready
        case "failed":
            self = .failed(reason: json["reason"]?.stringValue ?? "", stderr: json["stderr"]?.stringValue)
        case "closed": self = .closed
        case let name: self = .other(name)
        }
    }
}

/// A configured server and its state, as `MCPHost.servers()` lists them.
public struct HostServer: Sendable, Equatable {
    /// The server's name in the configuration, the prefix of its tools and prompts.
    public let name: String
    /// Its state.
    public let state: ServerState
}

/// What happens in a host, as `MCPHost.events` tells it.
public enum HostEvent: Sendable, Equatable {
    /// A server changed state; the host's lists already show it.
    case stateChanged(server: String, state: ServerState)
    /// A server's `tools`, `prompts` or `resources` (with its templates) changed, and the
    /// host's lists show the new one.
    case listChanged(server: String, list: String)
    /// The names several servers offer changed; these are all of them now (as
    /// `MCPHost.collisions()` lists them).
    case collisions([JSONValue])
    /// The reader fell behind and missed the oldest `missed` events; the host's lists and
    /// states always show the present.
    case lagged(missed: Int)
    /// An event this version does not know, as it came.
    case other(JSONValue)

    init(_ json: JSONValue) {
        switch json["type"]?.stringValue {
        case "stateChanged": self = .stateChanged(server: json["server"]?.stringValue ?? "", state: ServerState(json))
        case "listChanged":
            self = .listChanged(server: json["server"]?.stringValue ?? "", list: json["list"]?.stringValue ?? "")
        case "collisions": self = .collisions(json["collisions"]?.arrayValue ?? [])
        case "lagged": self = .lagged(missed: json["missed"]?.intValue ?? 0)
        default: self = .other(json)
        }
    }
}

/// One client for many servers, read from an `mcpServers` configuration (that of Claude
/// Desktop, Cursor or VS Code).
///
/// Each server's tools and prompts are offered under `<server>__<name>` (the separator is the
/// option `separator`); names that several servers offer are left out and listed by
/// `collisions()`. A server that fails to connect does not fail the host: its state says why.
/// Cancelling the Swift task that awaits a call cancels the call.
public final class MCPHost: Sendable {
    let native: NativeHost

    init(_ native: NativeHost) {
        self.native = native
    }

    /// Connects to every enabled server of `config` at once and returns when each has become
    /// ready or failed.
    ///
    /// `config` is the whole configuration (an object with `mcpServers`, or VS Code's
    /// `servers`) or the `mcpServers` object alone; `${VAR}` is expanded from this process's
    /// environment. `options` takes the host's settings: `name`, `version`, `title`
    /// (the client's description sent to every server), `protocolVersion`,
    /// `requestTimeoutMs` (for servers without `timeoutMs`), `capabilities` and `separator`
    /// (`__` by default).
    ///
    /// `apps` declares MCP Apps to every server: the host renders app views
    /// (`readAppView(tool:)`), so servers list the tools only a view may call, which `tools()`
    /// marks as not `visibleToModel`. `middleware` wraps every message of every server's
    /// connection, outermost first (see `Middleware`).
    public static func connect(
        _ config: JSONValue, options: JSONObject = [:], apps: Bool = false, middleware: [Middleware] = [],
        handlers: HostHandlers = .init()
    ) async throws -> MCPHost {
        try await connect(config: config, options: clientOptions(options, apps), handlers: handlers.native(middleware))
    }

    /// Connects to every enabled server of the configuration file at `path` (JSON, such as
    /// `claude_desktop_config.json` or `.vscode/mcp.json`); as
    /// `connect(_:options:apps:middleware:handlers:)`.
    public static func connect(
        path: String, options: JSONObject = [:], apps: Bool = false, middleware: [Middleware] = [],
        handlers: HostHandlers = .init()
    ) async throws -> MCPHost {
        try await connect(
            config: .string(path), options: clientOptions(options, apps), handlers: handlers.native(middleware))
    }

    private static func connect(
        config: JSONValue, options: String, handlers: NativeClientHandlers
    ) async throws -> MCPHost {
        let config = config.jsonText
        return MCPHost(
            try await awaitNative { cancel in
                try await nativeHostConnect(config: config, options: options, handlers: handlers, cancel: cancel)
            })
    }

    /// Every configured server, in the order of the configuration, with its state.
    public func servers() -> [HostServer] {
        parsedArray(native.servers()).map { HostServer(name: $0["name"]?.stringValue ?? "", state: ServerState($0)) }
    }

    /// The state of the server `name`; throws a `.config` error for a name the configuration
    /// does not have.
    public func state(_ name: String) throws -> ServerState {
        let text = try callNative { try native.state(name: name) }
        return ServerState(try JSONValue(parsing: text))
    }

    /// The tools of every ready server, each under its host name (`calc__add`), with the
    /// `server` that offers it and whether the model may see it (`visibleToModel`: false for a
    /// tool that only an app view may call).
    public func tools() -> [JSONValue] { parsedArray(native.tools()) }

    /// Reads the app view (MCP Apps) of the tool with host name `tool` from its server. The
    /// host must have connected with `apps: true`; a name the host does not offer, or a tool
    /// without a view, throws an `MCPError` of kind `.config`.
    public func readAppView(tool: String) async throws -> AppView {
        AppView(
            try await awaitNative { cancel in try JSONValue(parsing: await native.readAppView(tool: tool, cancel: cancel)) })
    }

    /// The prompts of every ready server, each under its host name and with its `server`.
    public func prompts() -> [JSONValue] { parsedArray(native.prompts()) }

    /// The resources of every ready server, each with its `server`.
    public func resources() -> [JSONValue] { parsedArray(native.resources()) }

    /// The resource templates of every ready server, each with its `server`.
    public func resourceTemplates() -> [JSONValue] { parsedArray(native.resourceTemplates()) }

    /// The names several ready servers offer at once, which the host offers under none of
    /// them: `{"kind", "name", "servers"}`, `kind` being `tool`, `prompt`, `resource` or
    /// `resourceTemplate`.
    public func collisions() -> [JSONValue] { parsedArray(native.collisions()) }

    /// Calls a tool by its host name. `timeout` (which each progress notification restarts)
    /// and `maxTotalTimeout` override the server's configuration; `progress` asks for progress
    /// and hears each `notifications/progress` params. A server that is not ready, or goes
    /// away during the call, fails it with a `.transportClosed` error naming the server.
    public func callTool(
        _ name: String, arguments: JSONValue = [:], timeout: Duration? = nil, maxTotalTimeout: Duration? = nil,
        progress: (@Sendable (JSONValue) -> Void)? = nil
    ) async throws -> CallToolResult {
        let arguments = arguments.jsonText
        let options = hostOptions(timeout, maxTotalTimeout)
        return CallToolResult(
            try await awaitNative { cancel in
                let options = NativeCallOptions(options: options, progress: progress.map { ListenerBox($0) }, cancel: cancel)
                return try JSONValue(parsing: await native.callTool(name: name, arguments: arguments, options: options))
            })
    }

    /// Calls a tool with arguments encoded from an `Encodable` value.
    public func callTool<Arguments: Encodable>(
        _ name: String, arguments: Arguments, timeout: Duration? = nil, maxTotalTimeout: Duration? = nil,
        progress: (@Sendable (JSONValue) -> Void)? = nil
    ) async throws -> CallToolResult {
        try await callTool(
            name, arguments: JSONValue(encoding: arguments), timeout: timeout, maxTotalTimeout: maxTotalTimeout,
            progress: progress)
    }

    /// Calls a tool by its host name as a task on the server that offers it and returns the task
    /// at once (`{"taskId", "status", …}`) with the `server` that runs it; `ttl` is how long the
    /// server keeps the task. Follow it with `getTask`, `taskResult` or `cancelTask`.
    public func callToolAsTask(
        _ name: String, arguments: JSONValue = [:], ttl: Duration? = nil, timeout: Duration? = nil
    ) async throws -> JSONValue {
        let arguments = arguments.jsonText
        let ttl = ttl.map { JSONValue.int(Int($0.components.seconds) * 1000 + Int($0.components.attoseconds / 1_000_000_000_000_000)) }
        let options = hostOptions(timeout, nil, task: .object(JSONObject(compacting: ["ttl": ttl])))
        let created = try await awaitNative { cancel in
            let options = NativeCallOptions(options: options, progress: nil, cancel: cancel)
            return try JSONValue(parsing: await native.callTool(name: name, arguments: arguments, options: options))
        }
        var task = created["task"]?.objectValue ?? [:]
        task["server"] = created["server"] ?? .null
        return .object(task)
    }

    /// Returns the current state of the task `id` of the server `server` (`tasks/get`).
    public func getTask(_ id: String, server: String, timeout: Duration? = nil) async throws -> JSONValue {
        let options = hostOptions(timeout, nil)
        return try await awaitNative { cancel in
            let options = NativeCallOptions(options: options, progress: nil, cancel: cancel)
            return try JSONValue(parsing: await native.getTask(server: server, taskId: id, options: options))
        }
    }

    /// Waits until the task `id` of the server `server` ends and returns the tool's result.
    public func taskResult(_ id: String, server: String, timeout: Duration? = nil) async throws -> CallToolResult {
        let options = hostOptions(timeout, nil)
        return CallToolResult(
            try await awaitNative { cancel in
                let options = NativeCallOptions(options: options, progress: nil, cancel: cancel)
                return try JSONValue(parsing: await native.taskResult(server: server, taskId: id, options: options))
            })
    }

    /// Cancels the task `id` of the server `server` and returns its final state.
    public func cancelTask(_ id: String, server: String, timeout: Duration? = nil) async throws -> JSONValue {
        let options = hostOptions(timeout, nil)
        return try await awaitNative { cancel in
            let options = NativeCallOptions(options: options, progress: nil, cancel: cancel)
            return try JSONValue(parsing: await native.cancelTask(server: server, taskId: id, options: options))
        }
    }

    /// Reads the resource at `uri` from `server`, or else from the server that lists it or the
    /// one server whose resource template matches it.
    public func readResource(
        _ uri: String, server: String? = nil, timeout: Duration? = nil, maxTotalTimeout: Duration? = nil
    ) async throws -> JSONValue {
        let options = hostOptions(timeout, maxTotalTimeout)
        return try await awaitNative { cancel in
            let options = NativeCallOptions(options: options, progress: nil, cancel: cancel)
            return try JSONValue(parsing: await native.readResource(uri: uri, server: server, options: options))
        }
    }

    /// Gets a prompt by its host name with its string arguments.
    public func getPrompt(
        _ name: String, arguments: [String: String] = [:], timeout: Duration? = nil, maxTotalTimeout: Duration? = nil
    ) async throws -> JSONValue {
        let arguments = JSONValue.object(JSONObject(arguments.mapValues(JSONValue.string))).jsonText
        let options = hostOptions(timeout, maxTotalTimeout)
        return try await awaitNative { cancel in
            let options = NativeCallOptions(options: options, progress: nil, cancel: cancel)
            return try JSONValue(parsing: await native.getPrompt(name: name, arguments: arguments, options: options))
        }
    }

    /// Connects to the server `name` again: a ready one is closed first, a failed one is tried
    /// anew. Returns at once; `events` tells the new states. Throws a `.config` error for a
    /// name the configuration does not have or a disabled server.
    public func restart(_ name: String) throws {
        try callNative { try native.restart(name: name) }
    }

    /// Tells every ready server that the host's roots changed.
    public func notifyRootsChanged() {
        native.notifyRootsChanged()
    }

    /// What happens from now on, one event at a time; the sequence ends once the host is
    /// closed (after the events its closing sent). Each access makes a new reader.
    public var events: Events { Events(native.events()) }

    /// Closes every server and returns once each has ended; every state becomes `.closed`.
    /// Closing again does nothing.
    public func close() async {
        await native.close()
    }

    /// The events of a host, as an asynchronous sequence.
    public final class Events: AsyncSequence, Sendable {
        /// An event.
        public typealias Element = HostEvent

        let native: NativeHostEvents

        init(_ native: NativeHostEvents) {
            self.native = native
        }

        /// Returns an iterator over the events; cancelling the task that awaits one ends the
        /// wait with a `CancellationError`.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(native: native)
        }

        /// Reads the events one after the other.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let native: NativeHostEvents

            /// The next event, or `nil` once the reader or the host is closed.
            public mutating func next() async throws -> HostEvent? {
                let native = native
                let text = try await awaitNative { cancel in try await native.nextEvent(cancel: cancel) }
                return try text.map { HostEvent(try JSONValue(parsing: $0)) }
            }
        }

        /// Ends the reader: a waiting `next()` and every later one returns `nil`.
        public func close() {
            native.close()
        }
    }
}

/// The elements of the JSON text of an array (empty if it is not one).
private func parsedArray(_ text: String) -> [JSONValue] {
    (try? JSONValue(parsing: text))?.arrayValue ?? []
}

/// The JSON text of a host call's options.
/// A duration in milliseconds, as the bridge's options hold it.
private func milliseconds(_ d: Duration?) -> JSONValue? {
    d.map { .double(Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15) }
}

/// The JSON text of a host call's options; `task` makes a tool call a task.
private func hostOptions(_ timeout: Duration?, _ maxTotalTimeout: Duration?, task: JSONValue? = nil) -> String {
    let options = JSONObject(compacting: [
        "timeoutMs": milliseconds(timeout), "maxTotalTimeoutMs": milliseconds(maxTotalTimeout), "task": task,
    ])
    return JSONValue.object(options).jsonText
}
