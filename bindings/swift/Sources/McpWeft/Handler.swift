import Dispatch
import McpWeftNative
#if canImport(Darwin)
import Foundation
#else
import Synchronization
#endif

/// The shape every Swift handler takes once registered: a JSON payload and a context in, a
/// JSON value out.
typealias HandlerBody = @Sendable (JSONValue, Context) async throws -> JSONValue

/// A Swift closure as the Rust core's handler: JSON text in and out, errors mapped once.
///
/// Each call runs in its own Swift task on the global concurrent executor, never on the
/// thread that called: those threads serve the protocol, and a handler that computes or
/// blocks without suspending would hold up every other request and session there. The core
/// drops a cancelled request's call, which cancels the task. A result nested deeper than
/// `JSONValue.maxResultDepth` fails its call, as Python's conversion does.
final class HandlerBox: NativeHandler {
    let body: HandlerBody

    init(_ body: @escaping HandlerBody) {
        self.body = body
    }

    func start(payload: String, context: NativeContext, reply: NativeReply) -> NativeCall? {
        let body = body
        return startCall(reply) { try await body(JSONValue(parsing: payload), Context(context)) }
    }
}

/// Runs `body` in a Swift task of its own on the global concurrent executor and answers
/// `reply` with the JSON text of its value (a string value as itself, which the core takes
/// without its text being escaped and parsed again), or with the error it throws; returns the
/// running call for the core to cancel, or `nil` when it has answered already.
func startCall(_ reply: NativeReply, _ body: @escaping @Sendable () async throws -> JSONValue) -> NativeCall? {
    let outcome = Outcome()
    let operation: @Sendable () async -> Void = {
        do {
            let value = try await body()
            if case .string(let text) = value {
                reply.resolveText(text: text)
            } else {
                reply.resolve(value: try value.boundedJSONText())
            }
        } catch {
            reply.reject(error: MCPError.native(from: error))
        }
        outcome.finish()
    }
    let task = Task(operation: operation)
    return outcome.isFinished ? nil : RunningCall(task)
}

/// Whether a handler's task has answered, set by the task and read by the thread that
/// started it. Apple platforms lock an NSLock (the standard library's `Mutex` needs macOS 15);
/// elsewhere the `Mutex` is used, as NSLock is not in FoundationEssentials.
#if canImport(Darwin)
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var finished = false

    func finish() {
        lock.withLock { finished = true }
    }

    var isFinished: Bool { lock.withLock { finished } }
}
#else
private final class Outcome: Sendable {
    private let finished = Mutex(false)

    func finish() {
        finished.withLock { $0 = true }
    }

    var isFinished: Bool { finished.withLock { $0 } }
}
#endif

/// The task of a handler's call that has not answered yet, as the core cancels it.
private final class RunningCall: NativeCall {
    let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    func cancel() {
        task.cancel()
    }
}

/// A Swift closure that hears JSON payloads, such as progress notifications.
final class ListenerBox: NativeListener {
    let body: @Sendable (JSONValue) -> Void

    init(_ body: @escaping @Sendable (JSONValue) -> Void) {
        self.body = body
    }

    func hear(payload: String) {
        body((try? JSONValue(parsing: payload)) ?? .null)
    }
}

/// Turns a typed handler into the JSON shape: the payload is decoded into `Input` and the
/// result encoded from `Output`, without any coding when they are `JSONValue` already.
func typed<Input: Decodable, Output: Encodable>(
    _ handler: @escaping @Sendable (Input, Context) async throws -> Output
) -> HandlerBody {
    { payload, context in
        let input: Input
        do {
            input = try payload.decode(Input.self)
        } catch {
            throw MCPError.invalidParams("invalid arguments: \(error)")
        }
        let output = try await handler(input, context)
        if let json = output as? JSONValue { return json }
        if let text = output as? String { return .string(text) }
        return try JSONValue(encoding: output)
    }
}
