import McpWeftNative

/// The notifications a `subscriptions/listen` stream asks for (`Client.listen(_:)`), or those
/// the server agreed to send (`MCPSubscription.acknowledged`).
public struct SubscriptionFilter: Sendable, Hashable {
    /// `notifications/tools/list_changed`: the server's tools changed.
    public var toolsListChanged: Bool
    /// `notifications/prompts/list_changed`: the server's prompts changed.
    public var promptsListChanged: Bool
    /// `notifications/resources/list_changed`: the server's resources changed.
    public var resourcesListChanged: Bool
    /// The URIs of the resources whose `notifications/resources/updated` to send.
    public var resourceSubscriptions: [String]

    /// A filter asking for the notifications named; by default for none.
    public init(
        toolsListChanged: Bool = false, promptsListChanged: Bool = false, resourcesListChanged: Bool = false,
        resourceSubscriptions: [String] = []
    ) {
        self.toolsListChanged = toolsListChanged
        self.promptsListChanged = promptsListChanged
        self.resourcesListChanged = resourcesListChanged
        self.resourceSubscriptions = resourceSubscriptions
    }

    /// Reads a filter object as the bridge writes it; a missing member is `false` or empty.
    init(_ json: JSONValue) {
        toolsListChanged = json["toolsListChanged"]?.boolValue ?? false
        promptsListChanged = json["promptsListChanged"]?.boolValue ?? false
        resourcesListChanged = json["resourcesListChanged"]?.boolValue ?? false
        resourceSubscriptions = (json["resourceSubscriptions"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    /// The filter object as the bridge reads it.
    var json: JSONValue {
        [
            "toolsListChanged": .bool(toolsListChanged), "promptsListChanged": .bool(promptsListChanged),
            "resourcesListChanged": .bool(resourcesListChanged),
            "resourceSubscriptions": .array(resourceSubscriptions.map(JSONValue.string)),
        ]
    }
}

/// A notification from the server, as an `MCPSubscription` hands it over.
public struct ServerNotification: Sendable, Equatable {
    /// The notification's method, such as `notifications/tools/list_changed`.
    public let method: String
    /// Its params (an empty object when it had none).
    public let params: JSONValue

    /// A notification of `method` with `params`.
    public init(method: String, params: JSONValue = [:]) {
        self.method = method
        self.params = params
    }
}

/// An open `subscriptions/listen` stream of a 2026-07-28 server, from `Client.listen(_:)`
/// (named so beside Combine's `Subscription`): an asynchronous sequence of the stream's
/// notifications, which the client's `ClientHandlers` hear as well.
///
/// The sequence ends once the stream does: closed with `close()`, ended by the server, or ended
/// with the connection. An iteration that stops closes the stream: leaving a `for try await`
/// loop (by `break`, `return` or a thrown error), cancelling the task that awaits `next()` (which
/// then throws a `CancellationError`), or letting go of the iterator. Iterating again then ends
/// at once; letting go of the subscription itself ends its stream too.
///
/// ```swift
/// let subscription = try await client.listen(SubscriptionFilter(toolsListChanged: true))
/// print(subscription.acknowledged.toolsListChanged)   // false if the server offers no tools
/// for try await notification in subscription {
///     print(notification.method)                      // "notifications/tools/list_changed"
/// }
/// ```
public final class MCPSubscription: AsyncSequence, Sendable {
    /// A notification of the stream.
    public typealias Element = ServerNotification

    /// What the server agreed to send: the requested notifications it supports (a list it
    /// does not offer is left out).
    public let acknowledged: SubscriptionFilter

    let native: NativeSubscription

    init(_ native: NativeSubscription) {
        self.native = native
        acknowledged = SubscriptionFilter((try? JSONValue(parsing: native.acknowledged())) ?? .null)
    }

    /// Returns an iterator over the stream's notifications, in the order they came; when it
    /// stops (it ends, its task is cancelled, or it is let go of) the stream is closed.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lease: Lease(native))
    }

    /// Ends the stream and returns once its request is over: a waiting `next()` and every later
    /// one returns `nil`. Closing again does nothing.
    public func close() async {
        await native.close()
    }

    /// Reads the stream's notifications one after the other.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let lease: Lease

        /// The next notification, or `nil` once the stream ended. Cancelling the task that
        /// awaits it closes the stream and throws a `CancellationError`.
        public mutating func next() async throws -> ServerNotification? {
            let native = lease.native
            let text: String?
            do {
                text = try await awaitNative { cancel in try await native.nextNotification(cancel: cancel) }
            } catch let error as CancellationError {
                await native.close()
                throw error
            }
            guard let text else {
                await native.close()
                return nil
            }
            let notification = try JSONValue(parsing: text)
            return ServerNotification(
                method: notification["method"]?.stringValue ?? "", params: notification["params"] ?? [:])
        }
    }

    /// An iterator's hold on the stream, shared by its copies: the last one to go closes it.
    final class Lease: Sendable {
        let native: NativeSubscription

        init(_ native: NativeSubscription) {
            self.native = native
        }

        deinit {
            let native = native
            Task { await native.close() }
        }
    }
}
