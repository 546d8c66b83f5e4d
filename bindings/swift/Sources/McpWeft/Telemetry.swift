import McpWeftNative

/// OpenTelemetry through the Rust crates: the spans of the `.openTelemetry` middleware,
/// exported over OTLP/HTTP.
///
/// ```swift
/// try Telemetry.exportOTLP(serviceName: "weather")
/// try server.use(.openTelemetry)
/// // ... serve ...
/// try Telemetry.flush()
/// ```
public enum Telemetry {
    /// Sends the spans of the process's `.openTelemetry` middleware to the OTLP/HTTP collector
    /// whose traces URL is `endpoint`, in batches, naming the process `serviceName` in the
    /// traces; `.openTelemetry` middleware record with the exporter installed last, whenever
    /// they were added. Calling it again replaces the exporter, after flushing the
    /// spans of the previous one. A URL the exporter cannot use throws an `.invalidInput`
    /// error.
    public static func exportOTLP(
        endpoint: String = "http://127.0.0.1:4318/v1/traces", serviceName: String
    ) throws {
        try callNative { try nativeExportOtlp(endpoint: endpoint, serviceName: serviceName) }
    }

    /// Exports the spans recorded so far and returns once the collector took them (or the
    /// export failed, which throws); it blocks the calling thread meanwhile. Without an
    /// exporter it does nothing.
    public static func flush() throws {
        try callNative { try nativeFlushTelemetry() }
    }
}
