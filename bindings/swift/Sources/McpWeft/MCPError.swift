#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import McpWeftNative

/// An error of MCP: one the peer answered with, one a handler throws to answer with exactly
/// that JSON-RPC error, or a local failure (a closed connection, a time-out).
///
/// Thrown from a tool handler, an error of kind `.rpc` answers the request with its code,
/// message and data; any other error thrown by a tool becomes an `isError` result whose text
/// is the error's message, so the model sees it.
public struct MCPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure an error is; the names are the same in every mcpweft language.
    public enum Kind: String, Sendable, CaseIterable {
        case rpc
        case transportClosed = "transport_closed"
        case timeout
        case cancelled
        case `protocol`
        case capabilityMissing = "capability_missing"
        case config
        case invalidInput = "invalid_input"
        case io
        case handler
        case overloaded
        case `internal`
    }

    /// The JSON-RPC error codes MCP uses.
    public enum Code {
        public static let parseError = -32700
        public static let invalidRequest = -32600
        public static let methodNotFound = -32601
        public static let invalidParams = -32602
        public static let internalError = -32603
        public static let requestTimeout = -32001
        public static let resourceNotFound = -32002
        public static let urlElicitationRequired = -32042
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The JSON-RPC error code, for kind `.rpc`.
    public let code: Int?
    /// A message for people.
    public let message: String
    /// The JSON-RPC error's `data`.
    public let data: JSONValue?
    /// The messages of the underlying errors, outermost first.
    public let causes: [String]

    /// Creates a JSON-RPC error, to throw from a handler or to compare with.
    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.init(kind: .rpc, code: code, message: message, data: data)
    }

    /// Creates an error of any kind.
    public init(kind: Kind, code: Int? = nil, message: String, data: JSONValue? = nil, causes: [String] = []) {
        self.kind = kind
        self.code = code
        self.message = message
        self.data = data
        self.causes = causes
    }

    /// An invalid-params error (-32602).
    public static func invalidParams(_ message: String, data: JSONValue? = nil) -> MCPError {
        MCPError(code: Code.invalidParams, message: message, data: data)
    }

    /// An internal error (-32603).
    public static func internalError(_ message: String, data: JSONValue? = nil) -> MCPError {
        MCPError(code: Code.internalError, message: message, data: data)
    }

    /// A resource-not-found error (-32002) for `uri`.
    public static func resourceNotFound(_ uri: String) -> MCPError {
        MCPError(code: Code.resourceNotFound, message: "Resource not found: \(uri)", data: ["uri": .string(uri)])
    }

    public var description: String {
        let prefix = code.map { "MCP error \($0)" } ?? "MCP error (\(kind.rawValue))"
        return causes.isEmpty ? "\(prefix): \(message)" : "\(prefix): \(message) (caused by: \(causes.joined(separator: "; ")))"
    }

    /// The codes of the bridge's table, by name, for tests that compare them with `Code`.
    public static var bridgeCodes: [String: Int] {
        nativeErrorCodes().mapValues { Int($0) }
    }

    /// The bridge's table of error kinds (`name`, `code` where there is one, `meaning`), for
    /// tests that compare it with `Kind`.
    public static var bridgeKinds: [JSONValue] {
        (try? JSONValue(parsing: nativeErrorKinds()))?.arrayValue ?? []
    }
}

extension MCPError {
    /// Converts an error of the Rust core.
    init(native: NativeError) {
        switch native {
        case .Failure(let kind, let code, let message, let data, let causes):
            self.init(
                kind: Kind(rawValue: kind) ?? .internal, code: code.map { Int($0) }, message: message,
                data: data.flatMap { try? JSONValue(parsing: $0) }, causes: causes)
        }
    }

    /// Describes an error thrown by Swift code for the Rust core, whose one rule for foreign
    /// errors decides what it becomes: an `MCPError` hands over its kind, code, data and causes,
    /// a `CancellationError` is a cancellation, and anything else is a handler failure.
    static func native(from error: Error) -> NativeError {
        let mcp: MCPError
        switch error {
        case let e as MCPError: mcp = e
        case let e as NativeError: return e
        case is CancellationError: mcp = MCPError(kind: .cancelled, message: "the handler was cancelled")
        default: mcp = MCPError(kind: .handler, message: describe(error))
        }
        return .Failure(
            kind: mcp.kind.rawValue, code: mcp.code.map { Int64($0) }, message: mcp.message,
            data: mcp.data?.jsonText, causes: mcp.causes)
    }

    private static func describe(_ error: Error) -> String {
        if let localized = error as? LocalizedError, let text = localized.errorDescription { return text }
        return String(describing: error)
    }
}

/// Runs a call into the core, turning its errors into `MCPError` (or `CancellationError` when
/// the Swift task was cancelled), and cancelling it when the Swift task is cancelled.
func awaitNative<T>(_ call: (NativeCancelHandle) async throws -> T) async throws -> T {
    let cancel = NativeCancelHandle()
    do {
        return try await withTaskCancellationHandler {
            try await call(cancel)
        } onCancel: {
            cancel.cancel()
        }
    } catch let error as NativeError {
        let mcp = MCPError(native: error)
        if mcp.kind == .cancelled && Task.isCancelled { throw CancellationError() }
        throw mcp
    }
}

/// Runs a synchronous call into the core, turning its errors into `MCPError`.
func callNative<T>(_ call: () throws -> T) throws -> T {
    do {
        return try call()
    } catch let error as NativeError {
        throw MCPError(native: error)
    }
}
