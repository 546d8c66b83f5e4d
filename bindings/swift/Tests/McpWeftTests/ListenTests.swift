import McpWeft
import XCTest

/// `Client.listen` against a real 2026-07-28 server, in memory and over HTTP: the subscription
/// tells what the server acknowledged, yields the stream's notifications as an `AsyncSequence`,
/// and closes the stream when the iteration stops, when it is closed, cancelled or its
/// connection ends; a 2025-11-25 server has no such streams.
final class ListenTests: XCTestCase {
    static let next = "2026-07-28"

    /// A server with two tools (so that it still offers tools once one is removed) and a
    /// resource, and no prompts.
    func watchedServer() throws -> Server {
        let server = try Server(name: "watched", version: "1")
        try server.addResource("mem://note", name: "note") { _, _ in "hi" }
        try server.addTool("first") { (_: JSONValue, _: Context) -> JSONValue in "first" }
        try server.addTool("kept") { (_: JSONValue, _: Context) -> JSONValue in "kept" }
        return server
    }

    /// Client handlers that record the resource updates the client hears.
    func recording(_ updated: Recorder<String>) -> ClientHandlers {
        ClientHandlers(resourceUpdated: { uri in await updated.add(uri) })
    }

    /// Iterates over what is left of `subscription` and returns it; the test fails (rather than
    /// hangs) when the iteration has not ended within ten seconds.
    func remaining(_ subscription: MCPSubscription, _ what: String) async throws -> [ServerNotification] {
        let ended = Recorder<Bool>()
        let iteration = Task {
            var heard: [ServerNotification] = []
            for try await notification in subscription { heard.append(notification) }
            await ended.add(true)
            return heard
        }
        try await eventually(what) { await ended.items == [true] }
        // An iteration still waiting has failed the test: closing ends it.
        if await ended.items.isEmpty { await subscription.close() }
        return try await iteration.value
    }

    /// Checks that an update of `mem://note` sent now reaches no stream: `updated` still holds
    /// `before` after a round trip and a pause.
    func assertUpdateUnheard(
        _ server: Server, _ client: Client, _ updated: Recorder<String>, _ before: [String], _ what: String
    ) async throws {
        server.notifyResourceUpdated("mem://note")
        try await client.ping()
        try await Task.sleep(for: .milliseconds(100))
        let heard = await updated.items
        XCTAssertEqual(heard, before, what)
    }

    func listenYieldsNotificationsAndLeavingTheLoopClosesIt(_ server: Server, _ client: Client, _ updated: Recorder<String>)
        async throws
    {
        XCTAssertEqual(client.protocolVersion, Self.next)
        let subscription = try await client.listen(
            SubscriptionFilter(toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["mem://note"]))
        // The server offers no prompts: the acknowledgment leaves them out.
        XCTAssertEqual(
            subscription.acknowledged, SubscriptionFilter(toolsListChanged: true, resourceSubscriptions: ["mem://note"]))
        server.notifyResourceUpdated("mem://note")
        var heard: [ServerNotification] = []
        for try await notification in subscription {
            heard.append(notification)
            if heard.count == 1 {
                XCTAssertTrue(server.removeTool("first"))
            } else {
                break
            }
        }
        XCTAssertEqual(heard.map(\.method), ["notifications/resources/updated", "notifications/tools/list_changed"])
        XCTAssertEqual(heard.first?.params["uri"], "mem://note")
        // Both came on this stream: they carry its subscription id.
        let ids = heard.map { $0.params["_meta"]?["io.modelcontextprotocol/subscriptionId"] }
        XCTAssertNotNil(ids.first ?? nil)
        XCTAssertEqual(ids.first, ids.last)
        // The notifications reached the client's handlers as well.
        try await eventually("the handler hears the update") { await updated.items == ["mem://note"] }

        // Leaving the loop closed the stream: iterating again ends without a notification, and
        // a later update reaches no handler.
        let rest = try await remaining(subscription, "the second iteration ends")
        XCTAssertEqual(rest, [])
        try await assertUpdateUnheard(server, client, updated, ["mem://note"], "after the loop was left")
        await client.close()
    }

    func testListenYieldsTheStreamsNotificationsAndLeavingTheLoopClosesIt() async throws {
        let server = try watchedServer()
        let updated = Recorder<String>()
        let client = try await Client.inMemory(
            server: server, options: ["protocolVersion": .string(Self.next)], handlers: recording(updated))
        try await listenYieldsNotificationsAndLeavingTheLoopClosesIt(server, client, updated)
    }

    func testListenWorksTheSameOverHTTP() async throws {
        let server = try watchedServer()
        let http = try await server.serveHTTP(port: 0)
        let updated = Recorder<String>()
        let client = try await Client.http(
            url: http.url, options: ["protocolVersion": .string(Self.next)], handlers: recording(updated))
        try await listenYieldsNotificationsAndLeavingTheLoopClosesIt(server, client, updated)
        try await http.close()
    }

    func testClosingEndsAWaitingIterationAndCancellingItsTaskClosesTheStream() async throws {
        let server = try watchedServer()
        let updated = Recorder<String>()
        let client = try await Client.inMemory(
            server: server, options: ["protocolVersion": .string(Self.next)], handlers: recording(updated))
        let filter = SubscriptionFilter(resourceSubscriptions: ["mem://note"])

        // close() ends an iteration that waits, and every later one at once.
        let closed = try await client.listen(filter)
        XCTAssertEqual(closed.acknowledged, filter)
        let waiting = Task { try await closed.reduce(into: [ServerNotification]()) { $0.append($1) } }
        try await Task.sleep(for: .milliseconds(50))
        await closed.close()
        let heard = try await waiting.value
        XCTAssertEqual(heard, [])
        var again = closed.makeAsyncIterator()
        let next = try await again.next()
        XCTAssertNil(next)
        await closed.close()  // closing again does nothing
        try await assertUpdateUnheard(server, client, updated, [], "after close()")

        // Cancelling the task that iterates throws a CancellationError and closes the stream.
        let cancelled = try await client.listen(filter)
        server.notifyResourceUpdated("mem://note")
        let iterating = Task {
            var heard: [ServerNotification] = []
            for try await notification in cancelled { heard.append(notification) }
            return heard
        }
        try await eventually("the update is heard") { await updated.items == ["mem://note"] }
        iterating.cancel()
        let outcome = await iterating.result
        XCTAssertThrowsError(try outcome.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        var after = cancelled.makeAsyncIterator()
        let afterCancel = try await after.next()
        XCTAssertNil(afterCancel)
        try await assertUpdateUnheard(server, client, updated, ["mem://note"], "after the cancellation")
        await client.close()
    }

    func testASubscriptionEndsWithItsConnectionAndAnOlderServerHasNone() async throws {
        let server = try watchedServer()
        let client = try await Client.inMemory(server: server, options: ["protocolVersion": .string(Self.next)])
        let subscription = try await client.listen(SubscriptionFilter(resourceSubscriptions: ["mem://note"]))
        let waiting = Task { try await subscription.reduce(into: [ServerNotification]()) { $0.append($1) } }
        try await Task.sleep(for: .milliseconds(50))
        await client.close()
        let heard = try await waiting.value
        XCTAssertEqual(heard, [])

        let older = try await Client.inMemory(server: server)
        XCTAssertEqual(older.protocolVersion, "2025-11-25")
        do {
            _ = try await older.listen(SubscriptionFilter(toolsListChanged: true))
            XCTFail("a 2025-11-25 server opened a subscriptions/listen stream")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .capabilityMissing)
        }
        await older.close()
    }
}
