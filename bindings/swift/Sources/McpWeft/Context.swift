import McpWeftNative

/// The level of a log message, from the least to the most severe.
public enum LogLevel: String, Sendable {
    case debug, info, notice, warning, error, critical, alert, emergency
}

/// The context of one handler call: the request's ids, progress, logging, cancellation, and
/// requests to the peer (sampling, elicitation and roots from a server's handler).
///
/// A cancelled request cancels the Swift task running the handler, so `Task.isCancelled`,
/// `Task.checkCancellation()` and a `Task.sleep` that throws all see it.
public struct Context: Sendable {
    let native: NativeContext

    init(_ native: NativeContext) {
        self.native = native
    }

    /// The JSON-RPC id of the request being handled, or `nil` outside a request.
    public var requestID: JSONValue? { native.requestId().flatMap { try? JSONValue(parsing: $0) } }

    /// The transport's id of the session (Streamable HTTP's `Mcp-Session-Id`), or `nil` when
    /// it has none (stdio, in memory, a stateless HTTP server, a 2026-07-28 request).
    public var sessionID: String? { native.sessionId() }

    /// Who the request came from on a protected HTTP server, as the token verifier saw them;
    /// `nil` elsewhere.
    public var auth: AuthInfo? { native.auth().flatMap { try? JSONValue(parsing: $0).decode(AuthInfo.self) } }

    /// The request's `_meta`, if it had one.
    public var meta: JSONValue? { native.meta().flatMap { try? JSONValue(parsing: $0) } }

    /// The progress token the peer asked for, if any.
    public var progressToken: JSONValue? { native.progressToken().flatMap { try? JSONValue(parsing: $0) } }

    /// Whether the request was cancelled or its session ended.
    public var isCancelled: Bool { native.isCancelled() }

    /// Returns when the request is cancelled or its session ends.
    public func cancelled() async {
        await native.cancelled()
    }

    /// The client's `clientInfo`.
    public var clientInfo: JSONValue? { native.clientInfo().flatMap { try? JSONValue(parsing: $0) } }

    /// The capabilities the client declared.
    public var clientCapabilities: JSONValue { (try? JSONValue(parsing: native.clientCapabilities())) ?? [:] }

    /// The protocol version negotiated for the session.
    public var protocolVersion: String? { native.protocolVersion() }

    /// Reports progress when the peer asked for it; `progress` must increase from call to call.
    public func reportProgress(_ progress: Double, total: Double? = nil, message: String? = nil) throws {
        try callNative { try native.reportProgress(progress: progress, total: total, message: message) }
    }

    /// Sends a log message to the client, if its level lets it through.
    public func log(_ level: LogLevel, _ data: JSONValue, logger: String? = nil) throws {
        try callNative { try native.log(level: level.rawValue, data: data.jsonText, logger: logger) }
    }

    /// Sends any request to the peer and returns its result.
    public func request(_ method: String, params: JSONValue = [:]) async throws -> JSONValue {
        try await awaitNative { _ in try JSONValue(parsing: await native.request(method: method, params: params.jsonText)) }
    }

    /// Asks the client for input (`elicitation/create`, `sampling/createMessage` or
    /// `roots/list`) and returns its raw answer.
    ///
    /// A 2026-07-28 client answers by `key` in a later round: until it has, this throws, and
    /// the handler runs again from the start when the client retries, so work done before
    /// asking is repeated (keep what should not be with ``setState(_:)``). Let the error
    /// through; asks made together (`async let`) share one round. Older clients get the
    /// request at once and `key` is not used.
    public func ask(_ key: String, _ method: String, params: JSONValue = [:]) async throws -> JSONValue {
        try await awaitNative { _ in
            try JSONValue(parsing: await native.ask(key: key, method: method, params: params.jsonText))
        }
    }

    /// What ``setState(_:)`` kept in an earlier round of this 2026-07-28 request, if anything.
    public var state: JSONValue? { native.state().flatMap { try? JSONValue(parsing: $0) } }

    /// Keeps `state` for the next round of this 2026-07-28 request; older requests have one
    /// round and keep nothing.
    public func setState(_ state: JSONValue) throws {
        try callNative { try native.setState(state: state.jsonText) }
    }

    /// Asks the client to sample from its model; `params` are those of `sampling/createMessage`.
    public func sample(_ params: JSONValue) async throws -> JSONValue {
        try await awaitNative { _ in try JSONValue(parsing: await native.sample(params: params.jsonText)) }
    }

    /// Asks the client to elicit input from its user; `params` are those of
    /// `elicitation/create` (form mode with `requestedSchema`, or URL mode).
    public func elicit(_ params: JSONValue) async throws -> JSONValue {
        try await awaitNative { _ in try JSONValue(parsing: await native.elicit(params: params.jsonText)) }
    }

    /// Asks the client's user to fill in a form described by `schema`.
    public func elicit(message: String, requestedSchema schema: JSONValue) async throws -> JSONValue {
        try await elicit(["message": .string(message), "requestedSchema": schema])
    }

    /// Asks the client for its roots; the result holds `roots`.
    public func listRoots() async throws -> JSONValue {
        try await awaitNative { _ in try JSONValue(parsing: await native.listRoots()) }
    }

    /// Sends a notification to the peer, tied to the request being handled.
    public func notify(_ method: String, params: JSONValue = [:]) throws {
        try callNative { try native.notify(method: method, params: params.jsonText) }
    }

    /// Tells the client that the URL-mode elicitation `id` finished.
    public func notifyElicitationComplete(_ id: String) throws {
        try callNative { try native.notifyElicitationComplete(elicitationId: id) }
    }

    /// Ends the request's SSE stream over Streamable HTTP; the client resumes it later.
    public func closeSSEStream() throws {
        try callNative { try native.closeSseStream() }
    }
}
