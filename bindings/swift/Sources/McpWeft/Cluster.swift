/// Cluster mode: the sessions of a Streamable HTTP server shared through Redis, so that any
/// number of processes behind a load balancer without session affinity serve them. Pass it as
/// `serveHTTP(cluster:)`.
public struct ClusterOptions: Encodable, Sendable {
    /// The Redis server, such as `redis://127.0.0.1:6379/0`.
    public var url: String
    /// The start of every Redis key of this cluster.
    public var prefix: String?
    /// The events kept for resumption in each SSE stream.
    public var maxEventsPerStream: Int?
    /// How long a silent process still counts as alive, in milliseconds.
    public var livenessTtlMs: UInt64?
    /// The longest a Redis command may take, in milliseconds.
    public var commandTimeoutMs: UInt64?

    /// Creates the settings.
    public init(
        url: String, prefix: String? = nil, maxEventsPerStream: Int? = nil, livenessTtlMs: UInt64? = nil,
        commandTimeoutMs: UInt64? = nil
    ) {
        self.url = url
        self.prefix = prefix
        self.maxEventsPerStream = maxEventsPerStream
        self.livenessTtlMs = livenessTtlMs
        self.commandTimeoutMs = commandTimeoutMs
    }
}
