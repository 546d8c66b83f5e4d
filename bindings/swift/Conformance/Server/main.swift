// The conformance fixture server, written with McpWeft: exactly what the official MCP
// conformance suite's server scenarios call, with the names and payloads of the Rust reference
// fixture (tests/conformance/rust/src/fixture.rs). `conformance-server PORT` serves Streamable
// HTTP at http://127.0.0.1:PORT/mcp until killed; `conformance-server --stdio` serves stdio.
import Foundation
import McpWeft

/// A 1x1 PNG image, base64-encoded.
let pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
/// A WAV file of eight silent 16-bit samples at 8 kHz, base64-encoded.
let wavBase64 = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"
/// The pause between the steps of the logging and progress tools.
let stepDelay = Duration.milliseconds(50)
let completions = ["testValue1", "testValue2", "test-data", "example"]

let jsonSchema202012: JSONValue = [
    "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
    "$defs": ["address": ["type": "object", "properties": ["street": ["type": "string"], "city": ["type": "string"]]]],
    "properties": ["name": ["type": "string"], "address": ["$ref": "#/$defs/address"]], "additionalProperties": false,
]
let sep1034Schema: JSONValue = [
    "type": "object", "required": [],
    "properties": [
        "name": ["type": "string", "description": "User name", "default": "John Doe"],
        "age": ["type": "integer", "description": "User age", "default": 30],
        "score": ["type": "number", "description": "User score", "default": 95.5],
        "status": [
            "type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active",
        ],
        "verified": ["type": "boolean", "description": "Verification status", "default": true],
    ],
]
let sep1330Schema: JSONValue = [
    "type": "object", "required": [],
    "properties": [
        "untitledSingle": [
            "type": "string", "description": "Untitled single-select enum", "enum": ["option1", "option2", "option3"],
        ],
        "titledSingle": [
            "type": "string", "description": "Titled single-select enum",
            "oneOf": [
                ["const": "value1", "title": "First Option"], ["const": "value2", "title": "Second Option"],
                ["const": "value3", "title": "Third Option"],
            ],
        ],
        "legacyEnum": [
            "type": "string", "description": "Legacy titled enum", "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        ],
        "untitledMulti": [
            "type": "array", "description": "Untitled multi-select enum",
            "items": ["type": "string", "enum": ["option1", "option2", "option3"]],
        ],
        "titledMulti": [
            "type": "array", "description": "Titled multi-select enum",
            "items": [
                "anyOf": [
                    ["const": "value1", "title": "First Choice"], ["const": "value2", "title": "Second Choice"],
                    ["const": "value3", "title": "Third Choice"],
                ],
            ],
        ],
    ],
]
let elicitationSchema: JSONValue = [
    "type": "object", "required": ["username", "email"],
    "properties": [
        "username": ["type": "string", "description": "User's response"],
        "email": ["type": "string", "description": "User's email address"],
    ],
]

func text(_ text: String) -> JSONValue { ["content": [["type": "text", "text": .string(text)]]] }
func failure(_ text: String) -> JSONValue { ["content": [["type": "text", "text": .string(text)]], "isError": true] }
func blocks(_ blocks: JSONValue...) -> JSONValue { ["content": .array(blocks)] }
let image: JSONValue = ["type": "image", "data": .string(pngBase64), "mimeType": "image/png"]
func embedded(_ uri: String, _ mimeType: String, _ text: String) -> JSONValue {
    ["type": "resource", "resource": ["uri": .string(uri), "mimeType": .string(mimeType), "text": .string(text)]]
}
func stringArgument(_ name: String, _ description: String) -> JSONValue {
    ["type": "object", "properties": [name: ["type": "string", "description": .string(description)]], "required": [.string(name)]]
}

/// Sends a form elicitation and reports the answer as `<prefix>: action=…, content=…`.
func elicit(_ ctx: Context, _ message: String, _ schema: JSONValue, _ prefix: String) async -> JSONValue {
    do {
        let result = try await ctx.elicit(message: message, requestedSchema: schema)
        return text("\(prefix): action=\(result["action"]?.stringValue ?? ""), content=\((result["content"] ?? .null).jsonText)")
    } catch {
        return failure("Elicitation failed: \(error)")
    }
}

func fixture() throws -> Server {
    let server = try Server(name: "mcpweft-conformance-server", version: "0.1.0", settings: [
        "instructions": "The mcpweft fixture for the official MCP conformance suite.", "tasks": true,
    ])
    try registerRevision2026(server)
    func tool(_ name: String, _ description: String, schema: JSONValue? = nil,
              _ handler: @escaping @Sendable (JSONValue, Context) async throws -> JSONValue) throws {
        try server.addTool(name, description: description, inputSchema: schema, handler: handler)
    }
    try tool("test_simple_text", "Returns a simple text response.") { _, _ in text("This is a simple text response for testing.") }
    try tool("test_image_content", "Returns a 1x1 PNG image.") { _, _ in blocks(image) }
    try tool("test_audio_content", "Returns a short WAV clip.") { _, _ in
        blocks(["type": "audio", "data": .string(wavBase64), "mimeType": "audio/wav"])
    }
    try tool("test_embedded_resource", "Returns an embedded text resource.") { _, _ in
        blocks(embedded("test://embedded-resource", "text/plain", "This is an embedded resource content."))
    }
    try tool("test_multiple_content_types", "Returns text, an image and an embedded resource.") { _, _ in
        blocks(["type": "text", "text": "Multiple content types test:"], image,
               embedded("test://mixed-content-resource", "application/json", "{\"test\":\"data\",\"value\":123}"))
    }
    try tool("test_tool_with_logging", "Sends three log messages while it runs.") { _, ctx in
        for (i, step) in ["Tool execution started", "Tool processing data", "Tool execution completed"].enumerated() {
            if i > 0 { try await Task.sleep(for: stepDelay) }
            try ctx.log(.info, .string(step), logger: "conformance")
        }
        return text("Tool with logging executed successfully")
    }
    try tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 while it runs.") { _, ctx in
        for (i, progress) in [0.0, 50.0, 100.0].enumerated() {
            if i > 0 { try await Task.sleep(for: stepDelay) }
            try ctx.reportProgress(progress, total: 100)
        }
        try await Task.sleep(for: stepDelay)
        return text("Tool with progress executed successfully")
    }
    try tool("test_error_handling", "Always fails with a tool error.") { _, _ in
        failure("This tool intentionally returns an error for testing")
    }
    try tool("test_sampling", "Asks the client's model to answer a prompt.",
             schema: stringArgument("prompt", "The prompt to send to the model")) { args, ctx in
        do {
            let prompt = args["prompt"] ?? ""
            let result = try await ctx.sample([
                "messages": [["role": "user", "content": ["type": "text", "text": prompt]]], "maxTokens": 100,
            ])
            let content = result["content"] ?? .null
            let texts = (content.arrayValue ?? [content]).compactMap { $0["type"] == "text" ? $0["text"]?.stringValue : nil }
            return text("LLM response: \(texts.joined())")
        } catch {
            return failure("Sampling failed: \(error)")
        }
    }
    try tool("test_elicitation", "Asks the user for a username and an e-mail address.",
             schema: stringArgument("message", "The message to show the user")) { args, ctx in
        await elicit(ctx, args["message"]?.stringValue ?? "", elicitationSchema, "User response")
    }
    try tool("test_elicitation_sep1034_defaults", "Elicits one field of each type, each with a default.") { _, ctx in
        await elicit(ctx, "Please review and update the form fields with defaults", sep1034Schema, "Elicitation completed")
    }
    try tool("test_elicitation_sep1330_enums", "Elicits the five enum shapes of SEP-1330.") { _, ctx in
        await elicit(ctx, "Please select options from the enum fields", sep1330Schema, "Elicitation completed")
    }
    try tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", schema: jsonSchema202012) { args, _ in
        text("JSON Schema 2020-12 tool called with: \(args.jsonText)")
    }
    try tool("test_reconnection", "Closes its SSE stream, then answers on the resumed stream.") { _, ctx in
        try ctx.closeSSEStream()
        try await Task.sleep(for: .milliseconds(100))
        return text("Reconnection test completed")
    }

    try server.addResource("test://static-text", name: "static-text", description: "A static text resource.",
                           mimeType: "text/plain") { _, _ in "This is the content of the static text resource." }
    try server.addResource("test://static-binary", name: "static-binary",
                           description: "A static binary resource (a 1x1 PNG).", mimeType: "image/png") { _, _ in
        ["blob": .string(pngBase64)]
    }
    try server.addResource("test://watched-resource", name: "watched-resource",
                           description: "A resource clients can subscribe to.", mimeType: "text/plain") { _, _ in
        "Watched resource content"
    }
    try server.addResourceTemplate("test://template/{id}/data", name: "template-data",
                                   description: "A resource whose content depends on an id.",
                                   mimeType: "application/json") { request, _ in
        let id = request.variables["id"]?.stringValue ?? ""
        return .string("{\"id\":\(JSONValue.string(id).jsonText),\"templateTest\":true,\"data\":\(JSONValue.string("Data for ID: \(id)").jsonText)}")
    }

    try server.addPrompt("test_simple_prompt", description: "A simple prompt without arguments.") { _, _ in
        "This is a simple prompt for testing."
    }
    try server.addPrompt("test_prompt_with_arguments", description: "A prompt with two required arguments.", arguments: [
        PromptArgument("arg1", description: "First test argument", required: true),
        PromptArgument("arg2", description: "Second test argument", required: true),
    ]) { args, _ in .string("Prompt with arguments: arg1='\(args["arg1"] ?? "")', arg2='\(args["arg2"] ?? "")'") }
    try server.addPrompt("test_prompt_with_embedded_resource", description: "A prompt that embeds a resource.",
                         arguments: [PromptArgument("resourceUri", description: "URI of the resource to embed", required: true)]) { args, _ in
        [
            ["role": "user", "content": embedded(args["resourceUri"] ?? "", "text/plain", "Embedded resource content for testing.")],
            ["role": "user", "content": ["type": "text", "text": "Please process the embedded resource above."]],
        ]
    }
    try server.addPrompt("test_prompt_with_image", description: "A prompt that includes an image.") { _, _ in
        [
            ["role": "user", "content": image],
            ["role": "user", "content": ["type": "text", "text": "Please analyze the image above."]],
        ]
    }
    server.setCompletion { request, _ in
        let known = request.ref["name"] == "test_prompt_with_arguments" || request.ref["uri"] == "test://template/{id}/data"
        return .array(known ? completions.filter { $0.hasPrefix(request.value) }.map(JSONValue.string) : [])
    }
    return server
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--stdio"] {
    try await fixture().serveStdio()
} else if arguments.count == 1, let port = Int(arguments[0]) {
    // The pinned suite sends a stale MCP-Protocol-Version header after initializing.
    let http = try await fixture().serveHTTP(host: "127.0.0.1", port: port, options: ["requireNegotiatedVersion": false])
    FileHandle.standardError.write(Data("conformance-server: serving \(http.url)\n".utf8))
    try await http.wait()
} else {
    FileHandle.standardError.write(Data("usage: conformance-server PORT | conformance-server --stdio\n".utf8))
    exit(2)
}
