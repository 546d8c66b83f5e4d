#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import McpWeftNative

/// A Streamable HTTP endpoint without a listener of its own, which a host application's HTTP
/// server (Vapor, Hummingbird, SwiftNIO, ...) feeds with the requests it routes to it; made by
/// `Server.httpEndpoint`.
///
/// The application turns each request into a `Request`, awaits `handle(_:)`, and writes the
/// `Response`: its status and headers at once, then each chunk of `body` as it comes. An SSE
/// stream's body stays open while events may come, so write chunks as they arrive rather
/// than collect them; stop reading (or call `body.close()`) when the client goes away.
///
/// ```swift
/// let mcp = try server.httpEndpoint(path: "/mcp")
/// // In the application's route for /mcp (any method):
/// let response = try await mcp.handle(.init(method: "POST", path: "/mcp", headers: headers, body: body))
/// // Write response.status and response.headers, then: for try await chunk in response.body { ... }
/// ```
public final class HTTPEndpoint: Sendable {
    let native: NativeHttpEndpoint

    init(_ native: NativeHttpEndpoint) {
        self.native = native
    }

    /// One HTTP request the application received.
    public struct Request: Sendable {
        /// The method, such as `POST`.
        public var method: String
        /// The path and query, such as `/mcp`.
        public var path: String
        /// The header lines, in order; a name may repeat.
        public var headers: [(name: String, value: String)]
        /// The whole body.
        public var body: Data

        /// Creates a request.
        public init(method: String, path: String, headers: [(name: String, value: String)] = [], body: Data = Data()) {
            self.method = method
            self.path = path
            self.headers = headers
            self.body = body
        }
    }

    /// The answer to a request: status and headers at once, the body as a stream of chunks.
    public struct Response: Sendable {
        /// The status code.
        public let status: Int
        /// The header lines, in order.
        public let headers: [(name: String, value: String)]
        /// The body, chunk by chunk.
        public let body: Body

        /// The value of the first header line named `name` (compared without case), or `nil`.
        public func header(_ name: String) -> String? {
            let wanted = name.lowercased()
            return headers.first { $0.name.lowercased() == wanted }?.value
        }
    }

    /// The body of a response, as an asynchronous sequence of chunks. Read it once.
    public final class Body: AsyncSequence, Sendable {
        /// A chunk of the body.
        public typealias Element = Data

        let native: NativeResponseBody

        init(_ native: NativeResponseBody) {
            self.native = native
        }

        /// Returns an iterator over the chunks; cancelling the task that awaits a chunk ends
        /// the wait with a `CancellationError`.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(native: native)
        }

        /// Reads the chunks one after the other.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let native: NativeResponseBody

            /// The next chunk, or `nil` once the body ended.
            public mutating func next() async throws -> Data? {
                let native = native
                return try await awaitNative { cancel in try await native.nextChunk(cancel: cancel) }
            }
        }

        /// Ends the body early, as when the client went away; the server then stops sending on
        /// that stream.
        public func close() {
            native.close()
        }
    }

    /// Answers one request.
    public func handle(_ request: Request) async throws -> Response {
        let native = NativeHttpRequest(
            method: request.method, uri: request.path,
            headers: request.headers.map { NativeHttpHeader(name: $0.name, value: $0.value) }, body: request.body)
        let response = try await awaitNative { cancel in try await self.native.handle(request: native, cancel: cancel) }
        return Response(
            status: Int(response.status), headers: response.headers.map { (name: $0.name, value: $0.value) },
            body: Body(response.body))
    }
}
