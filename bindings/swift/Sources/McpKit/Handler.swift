import McpKitNative

/// The shape every Swift handler takes once registered: a JSON payload and a context in, a
/// JSON value out.
typealias HandlerBody = @Sendable (JSONValue, Context) async throws -> JSONValue

/// A Swift closure as the Rust core's handler: JSON text in and out, errors mapped once.
///
/// The core drops a cancelled request's handler call, which cancels the Swift task that runs
/// the closure (uniffi cancels it when the call is dropped).
final class HandlerBox: NativeHandler {
    let body: HandlerBody

    init(_ body: @escaping HandlerBody) {
        self.body = body
    }

    func call(payload: String, context: NativeContext) async throws -> String {
        do {
            return try await body(JSONValue(parsing: payload), Context(context)).jsonText
        } catch {
            throw MCPError.native(from: error)
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
