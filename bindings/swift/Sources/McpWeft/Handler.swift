import Dispatch
import Foundation
import McpWeftNative

/// The shape every Swift handler takes once registered: a JSON payload and a context in, a
/// JSON value out.
typealias HandlerBody = @Sendable (JSONValue, Context) async throws -> JSONValue

/// A Swift closure as the Rust core's handler: JSON text in and out, errors mapped once.
///
/// Each call runs in its own Swift task, which starts on the calling thread and runs there
/// until its first suspension; a handler that does not suspend thus answers without a thread
/// hop. After a suspension the task resumes on Dispatch's global queue. The core drops a
/// cancelled request's call, which cancels the task.
final class HandlerBox: NativeHandler {
    let body: HandlerBody

    init(_ body: @escaping HandlerBody) {
        self.body = body
    }

    func start(payload: String, context: NativeContext, reply: NativeReply) -> NativeCall? {
        let body = body
        let outcome = Outcome()
        let operation: @Sendable () async -> Void = {
            do {
                let value = try await body(JSONValue(parsing: payload), Context(context))
                reply.resolve(value: value.jsonText)
            } catch {
                reply.reject(error: MCPError.native(from: error))
            }
            outcome.finish()
        }
        let task: Task<Void, Never>
        if #available(macOS 15.0, iOS 18.0, *) {
            task = Task(executorPreference: StartHereExecutor(), operation: operation)
        } else {
            task = Task(operation: operation)
        }
        return outcome.isFinished ? nil : RunningCall(task)
    }
}

/// Whether a handler's task has answered, set by the task and read by the thread that
/// started it.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var finished = false

    func finish() {
        lock.withLock { finished = true }
    }

    var isFinished: Bool { lock.withLock { finished } }
}

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

/// The executor preferred by one handler task: it runs the task's first job on the thread that
/// creates the task, and every later job on Dispatch's global queue.
@available(macOS 15.0, iOS 18.0, *)
private final class StartHereExecutor: TaskExecutor, @unchecked Sendable {
    /// Set by the first job, before any later job can be enqueued.
    private var started = false

    func enqueue(_ job: consuming ExecutorJob) {
        if !started {
            started = true
            job.runSynchronously(on: asUnownedTaskExecutor())
        } else {
            let job = UnownedJob(job)
            DispatchQueue.global().async {
                job.runSynchronously(on: self.asUnownedTaskExecutor())
            }
        }
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
