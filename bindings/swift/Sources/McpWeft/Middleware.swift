import McpWeftNative

/// One message passing through a middleware chain: a request or notification a server or a
/// client receives from its peer or sends to it.
///
/// `method` and `params` may be changed before the message is passed on with `next`; the other
/// members describe where the message belongs.
public struct MiddlewareMessage: Sendable, Equatable {
    /// Whether a message came from the peer or is on its way to it.
    public enum Direction: String, Sendable {
        /// The peer sent it to this side.
        case received
        /// This side sends it to the peer.
        case sent
    }

    /// The role of the side a chain belongs to.
    public enum Role: String, Sendable {
        /// A server's chain.
        case server
        /// A client's (or a host's) chain.
        case client
    }

    /// The JSON-RPC method.
    public var method: String
    /// The parameters; `nil` for none.
    public var params: JSONObject?
    /// Whether it is a request (with an answer to come) rather than a notification.
    public let isRequest: Bool
    /// The request's id on the wire; `nil` for a notification.
    public let id: JSONValue?
    /// Whether the peer sent it or this side sends it.
    public let direction: Direction
    /// The role of the side whose chain it passes through.
    public let role: Role
    /// The transport's id of the session (Streamable HTTP's `Mcp-Session-Id`), if it has one.
    public let sessionID: String?
    /// The protocol revision the message belongs to.
    public let protocolVersion: String?
    /// Who sent the session's latest request on a protected HTTP server (the token's issuer,
    /// subject and client, one per line), if known.
    public let identity: String?
    /// The tool, prompt, resource URI or task the message is about, as it arrived.
    public let target: String?

    /// Reads the message as the core describes it.
    init(_ json: JSONValue) {
        method = json["method"]?.stringValue ?? ""
        params = json["params"]?.objectValue
        isRequest = json["isRequest"]?.boolValue ?? true
        id = json["id"].flatMap { $0.isNull ? nil : $0 }
        direction = json["direction"]?.stringValue.flatMap(Direction.init(rawValue:)) ?? .received
        role = json["role"]?.stringValue.flatMap(Role.init(rawValue:)) ?? .server
        sessionID = json["sessionId"]?.stringValue
        protocolVersion = json["protocolVersion"]?.stringValue
        identity = json["identity"]?.stringValue
        target = json["target"]?.stringValue
    }

    /// What the core reads of a message passed on: its method and parameters.
    var passed: JSONValue {
        ["method": .string(method), "params": params.map(JSONValue.object) ?? .null]
    }
}

/// The rest of a middleware chain: `try await next(message)` passes the message on and returns
/// its outcome (a request's result; `null` for a notification), or throws the error it failed
/// with. It may be called more than once, to retry.
public struct Next: Sendable {
    let native: NativeNext

    /// Passes `message` on and returns its outcome. Cancelling the calling task cancels what the
    /// rest of the chain is doing.
    public func callAsFunction(_ message: MiddlewareMessage) async throws -> JSONValue {
        let text = message.passed.jsonText
        let native = native
        return try await awaitNative { cancel in try JSONValue(parsing: await native.run(message: text, cancel: cancel)) }
    }
}

/// Whose requests a rate limit counts together.
public enum RateLimitScope: String, Sendable {
    /// Each authenticated caller, or each session when requests are not authenticated.
    case caller
    /// Each session, whoever sends its requests.
    case session
    /// All requests together.
    case global
}

/// A layer around every message a server or a client receives and sends: a closure of the
/// message and the rest of the chain, or one of the core's built-in middleware.
///
/// A middleware may read or change the message before `try await next(message)`, look at or
/// change the outcome, answer without calling `next` (return a request's result), or throw: an
/// `MCPError` with a JSON-RPC code fails the request with that code, message and data. The
/// first middleware added is the outermost. A server's chain sees the requests and
/// notifications it receives and those it sends (sampling, elicitation, log messages); a
/// client's, the calls it sends and what the server sends it.
///
/// ```swift
/// server.use { message, next in
///     let started = ContinuousClock.now
///     defer { print(message.method, ContinuousClock.now - started) }
///     return try await next(message)
/// }
/// try server.use(.rateLimit(perSecond: 10))
/// let client = try await Client.inMemory(server: server, middleware: [.cache(), .timing])
/// ```
public struct Middleware: Sendable {
    /// What a middleware written in Swift is: the message and the rest of the chain in, the
    /// outcome out.
    public typealias Body = @Sendable (MiddlewareMessage, Next) async throws -> JSONValue

    /// A closure, or the settings of a built-in middleware (`{"name": {...}}`).
    enum Kind: Sendable {
        case swift(Body)
        case builtin(JSONValue)
    }

    let kind: Kind

    /// A middleware written in Swift.
    public init(_ body: @escaping Body) {
        kind = .swift(body)
    }

    private init(builtin name: String, _ settings: JSONObject = [:]) {
        kind = .builtin(.object([name: .object(settings)]))
    }

    /// Logs every message with how long its outcome took, through the core's `tracing` log
    /// (`MCPWEFT_LOG=mcpweft::middleware=info` shows it): requests at `info` (failures at
    /// `warn`), notifications at `debug`.
    public static let timing = Middleware(builtin: "timing")

    /// Refuses received requests beyond `perSecond` on average and `burst` at once (one second's
    /// worth by default) with the JSON-RPC error -32003, whose data holds `retryAfterMs`,
    /// counted `per` caller, session or globally. `initialize`, `ping` and notifications are
    /// not counted. A rate that is not positive throws an `.invalidInput` error when added.
    public static func rateLimit(perSecond: Double, burst: Int? = nil, per: RateLimitScope = .caller) -> Middleware {
        Middleware(
            builtin: "rateLimit",
            JSONObject(compacting: [
                "perSecond": .double(perSecond), "burst": burst.map(JSONValue.int), "per": .string(per.rawValue),
            ]))
    }

    /// Answers repeated requests from earlier results while they are fresh, as 2026-07-28's
    /// `ttlMs` and `cacheScope` say (private results are kept per caller, public ones shared);
    /// `defaultTTL` applies to results without `ttlMs` and `maxTTL` bounds every one. List
    /// changes drop what they make stale. `methods` are the requests cached: by default
    /// `server/discover`, the four lists and `resources/read`.
    public static func cache(
        defaultTTL: Duration? = nil, maxTTL: Duration? = nil, maxEntries: Int? = nil, methods: [String]? = nil
    ) -> Middleware {
        Middleware(
            builtin: "cache",
            JSONObject(compacting: [
                "defaultTtlMs": defaultTTL.map(milliseconds), "maxTtlMs": maxTTL.map(milliseconds),
                "maxEntries": maxEntries.map(JSONValue.int), "methods": methods.map { .array($0.map(JSONValue.string)) },
            ]))
    }

    /// Records an OpenTelemetry span around every message, named and attributed as the official
    /// SDKs name them, and carries the trace context in `_meta` (`traceparent`): a server span
    /// for what a side receives, whose parent is the peer's context, and a client span for a
    /// request it sends. Spans go to the exporter `Telemetry.exportOTLP` installed last.
    public static let openTelemetry = Middleware(builtin: "openTelemetry")

    /// The middleware as the native layer takes it.
    var native: NativeMiddlewareEntry {
        switch kind {
        case .swift(let body): return .swift(middleware: MiddlewareBox(body))
        case .builtin(let spec): return .builtin(spec: spec.jsonText)
        }
    }
}

/// A duration in whole milliseconds, as the core's settings take it.
private func milliseconds(_ duration: Duration) -> JSONValue {
    .int(Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000))
}

/// A Swift middleware as the Rust core runs it: each message is handled in a Swift task of its
/// own, as a handler's call is, and the core cancels the task when the message's request is.
final class MiddlewareBox: NativeMiddleware {
    let body: Middleware.Body

    init(_ body: @escaping Middleware.Body) {
        self.body = body
    }

    func start(message: String, next: NativeNext, reply: NativeReply) -> NativeCall? {
        let body = body
        return startCall(reply) { try await body(MiddlewareMessage(JSONValue(parsing: message)), Next(native: next)) }
    }
}
