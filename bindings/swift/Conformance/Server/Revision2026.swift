// The tools and prompt of suite 0.2.0-alpha.12's revision 2026-07-28 scenarios: requests for
// input across rounds, the stateless checks, the tasks extension, subscriptions/listen and
// custom headers, with the names and payloads of the Rust fixture
// (tests/conformance/rust/src/fixture.rs and tasks.rs).
import McpWeft

/// Longer than the server's immediate window (100 ms): a call that waits this long before
/// asking for input or answering becomes a task.
let pastTheWindow = Duration.milliseconds(300)

/// The form a scenario asks its question with.
func form(_ message: String, _ property: String, _ type: String) -> JSONValue {
    [
        "message": .string(message),
        "requestedSchema": [
            "type": "object", "properties": .object([property: ["type": .string(type)]]), "required": [.string(property)],
        ],
    ]
}

func sampling(_ prompt: String, _ maxTokens: Int) -> JSONValue {
    ["messages": [["role": "user", "content": ["type": "text", "text": .string(prompt)]]], "maxTokens": .int(maxTokens)]
}

func askName(_ ctx: Context) async throws -> JSONValue {
    try await ctx.ask("user_name", "elicitation/create", params: form("What is your name?", "name", "string"))
}

func greeting(_ answer: JSONValue) -> JSONValue {
    text("Hello, \(answer["content"]?["name"]?.stringValue ?? "stranger")!")
}

/// Asks for every input in `asks` at once (so that all of them join one round) and returns the
/// answers in order, or throws the first failure once every request was made.
func gatherAll(_ ctx: Context, _ asks: [(key: String, method: String, params: JSONValue)]) async throws -> [JSONValue] {
    try await withThrowingTaskGroup(of: (Int, Result<JSONValue, Error>).self) { group in
        for (i, ask) in asks.enumerated() {
            group.addTask {
                do {
                    return (i, .success(try await ctx.ask(ask.key, ask.method, params: ask.params)))
                } catch {
                    return (i, .failure(error))
                }
            }
        }
        var answers = [Result<JSONValue, Error>?](repeating: nil, count: asks.count)
        for try await (i, answer) in group { answers[i] = answer }
        return try answers.map { try $0!.get() }
    }
}

let noArguments: JSONValue = ["type": "object", "properties": [:]]

func taskSupport(_ support: String) -> JSONObject { ["execution": ["taskSupport": .string(support)]] }

/// Adds the 2026-07-28 registrations to the fixture `server` (made with `tasks`).
func registerRevision2026(_ server: Server) throws {
    // The skill the skills scenarios (SEP-2640) find: a SKILL.md and one reference file.
    try server.addSkill(
        "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n"
            + "Read references/FORMS.md before filling a form.\n",
        files: ["references/FORMS.md": "Forms have fields; fill each one.\n"])
    func tool(_ name: String, _ description: String, schema: JSONValue = noArguments, descriptor: JSONObject = [:],
              _ handler: @escaping @Sendable (JSONValue, Context) async throws -> JSONValue) throws {
        try server.addTool(name, description: description, inputSchema: schema, descriptor: descriptor, handler: handler)
    }
    try tool("test_input_required_result_elicitation", "Asks for the user's name.") { _, ctx in
        greeting(try await askName(ctx))
    }
    try tool("test_input_required_result_tampered_state", "Asks for confirmation.") { _, ctx in
        try ctx.setState(["asked": true])
        _ = try await ctx.ask("confirm", "elicitation/create", params: form("Please confirm", "ok", "boolean"))
        return text("confirmed")
    }
    try tool("test_input_required_result_sampling", "Asks the model a question.") { _, ctx in
        let answer = try await ctx.ask(
            "capital_question", "sampling/createMessage", params: sampling("What is the capital of France?", 100))
        return text(answer["content"]?["text"]?.stringValue ?? "")
    }
    try tool("test_input_required_result_list_roots", "Asks for the client's roots.") { _, ctx in
        let answer = try await ctx.ask("client_roots", "roots/list")
        let uris = (answer["roots"]?.arrayValue ?? []).map { $0["uri"]?.stringValue ?? "" }
        return text("Roots: \(uris.joined(separator: ", "))")
    }
    try tool("test_input_required_result_request_state", "Asks for confirmation, keeping state.") { _, ctx in
        let resumed = ctx.state?["step"] == "confirm"
        try ctx.setState(["step": "confirm"])
        _ = try await ctx.ask("confirm", "elicitation/create", params: form("Please confirm", "ok", "boolean"))
        return text(resumed ? "state-ok: confirmed" : "confirmed without state")
    }
    try tool("test_input_required_result_multiple_inputs", "Asks for three inputs at once.") { _, ctx in
        try ctx.setState(["step": "all"])
        let answers = try await gatherAll(ctx, [
            ("user_name", "elicitation/create", form("What is your name?", "name", "string")),
            ("greeting", "sampling/createMessage", sampling("Generate a greeting", 50)),
            ("client_roots", "roots/list", [:]),
        ])
        return text("All inputs received for \(answers[0]["content"]?["name"]?.stringValue ?? "someone")")
    }
    try tool("test_input_required_result_multi_round", "Asks two questions, one round each.") { _, ctx in
        // The first answer is kept in the state, since the client sends only the latest.
        var name = ctx.state?["name"]?.stringValue
        if name == nil {
            let answer = try await ctx.ask("step1", "elicitation/create", params: form("Step 1: What is your name?", "name", "string"))
            name = answer["content"]?["name"]?.stringValue ?? "someone"
        }
        try ctx.setState(["name": .string(name ?? "someone")])
        let color = try await ctx.ask(
            "step2", "elicitation/create", params: form("Step 2: What is your favorite color?", "color", "string"))
        return text("\(name ?? "someone") likes \(color["content"]?["color"]?.stringValue ?? "no color")")
    }
    try tool("test_input_required_result_capabilities", "Asks only for what the client can give.") { _, ctx in
        let caps = ctx.clientCapabilities
        var asks: [(key: String, method: String, params: JSONValue)] = []
        if caps["sampling"] != nil { asks.append(("question", "sampling/createMessage", sampling("Say hello", 20))) }
        if caps["elicitation"] != nil { asks.append(("user_name", "elicitation/create", form("What is your name?", "name", "string"))) }
        if caps["roots"] != nil { asks.append(("client_roots", "roots/list", [:])) }
        _ = try await gatherAll(ctx, asks)
        return text("asked only for what the client declared")
    }
    try tool("test_missing_capability", "Needs sampling, which the client must declare.") { _, ctx in
        _ = try await ctx.ask("question", "sampling/createMessage", params: sampling("Say hello", 20))
        return text("sampled")
    }
    try tool("test_streaming_elicitation", "Asks for the user's name while it streams.") { _, ctx in
        try ctx.reportProgress(0, total: 1)
        return greeting(try await askName(ctx))
    }
    try tool("test_logging_tool", "Logs, for the clients that asked for logs.") { _, ctx in
        try ctx.log(.info, "a log message", logger: "fixture")
        return text("logged")
    }
    try server.addPrompt("test_input_required_result_prompt", description: "A prompt that asks for its context.") { _, ctx in
        let answer = try await ctx.ask(
            "user_context", "elicitation/create", params: form("What context should the prompt use?", "context", "string"))
        return .string("Use this context: \(answer["content"]?["context"]?.stringValue ?? "")")
    }

    try tool("greet", "Greets someone by name.", schema: ["type": "object", "properties": ["name": ["type": "string"]]]) { args, _ in
        text("Hello, \(args["name"]?.stringValue ?? "stranger")!")
    }
    let computeSchema: JSONValue = ["type": "object", "properties": ["seconds": ["type": "number"], "label": ["type": "string"]]]
    try tool("slow_compute", "Sleeps for the given seconds, then answers.", schema: computeSchema,
             descriptor: taskSupport("optional")) { args, _ in
        let seconds = min(max(args["seconds"]?.doubleValue ?? 1, 0), 600)
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        return text("\(args["label"]?.stringValue ?? "computation"): done after \(seconds) s")
    }
    try tool("failing_job", "Fails with a tool error after a second.", descriptor: taskSupport("required")) { _, _ in
        try await Task.sleep(for: .seconds(1))
        return failure("the job failed")
    }
    try tool("protocol_error_job", "Fails with a protocol error.", descriptor: taskSupport("optional")) { _, _ in
        try await Task.sleep(for: pastTheWindow)
        throw MCPError(code: -32603, message: "the job broke down")
    }
    try tool("confirm_delete", "Asks for confirmation, then deletes a file.",
             schema: ["type": "object", "properties": ["filename": ["type": "string"]]],
             descriptor: taskSupport("optional")) { args, ctx in
        let filename = args["filename"]?.stringValue ?? "the file"
        try await Task.sleep(for: pastTheWindow)
        let answer = try await ctx.ask("confirm", "elicitation/create", params: form("Delete \(filename)?", "confirm", "boolean"))
        let accepted = answer["action"] == "accept" && answer["content"]?["confirm"] != false
        return text(accepted ? "Deleted \(filename)" : "Kept")
    }
    try tool("multi_input", "Asks two questions at once.", descriptor: taskSupport("optional")) { _, ctx in
        try await Task.sleep(for: pastTheWindow)
        let answers = try await gatherAll(ctx, [
            ("first", "elicitation/create", form("First name?", "name", "string")),
            ("second", "elicitation/create", form("Second name?", "name", "string")),
        ])
        let names = answers.map { $0["content"]?["name"]?.stringValue ?? "?" }
        return text("\(names[0]) and \(names[1])")
    }
    try tool("test_tool_with_task", "Asks for the user's name, then greets them from a task.",
             descriptor: taskSupport("required")) { _, ctx in
        let answer = try await askName(ctx)
        try await Task.sleep(for: pastTheWindow)
        return greeting(answer)
    }
    try tool("test_header_param", "Echoes a region that is mirrored into the Mcp-Param-Region header.",
             schema: ["type": "object", "properties": ["region": ["type": "string", "x-mcp-header": "Region"]]]) { args, _ in
        text("region: \(args["region"]?.stringValue ?? "nowhere")")
    }
    try tool("test_trigger_tool_change", "Adds or removes a tool.") { _, _ in
        if !server.removeTool("dynamic_tool") {
            try server.addTool("dynamic_tool", description: "Appears and disappears.", inputSchema: noArguments) { (_: JSONValue, _: Context) in
                text("dynamic")
            }
        }
        return text("the tool list changed")
    }
    try tool("test_trigger_prompt_change", "Adds or removes a prompt.") { _, _ in
        if !server.removePrompt("dynamic_prompt") {
            try server.addPrompt("dynamic_prompt", description: "Appears and disappears.") { _, _ in "dynamic" }
        }
        return text("the prompt list changed")
    }
}
