// A client that uses a calculator server's tools, resources and prompts; it mirrors
// core/examples/calculator_client.rs. Usage: `calculator-client SERVER_COMMAND [ARGS...]`
// spawns the server over stdio, `calculator-client --http URL` connects over HTTP.
import Foundation
import McpWeft

/// Shows a value as people write it: strings bare, whole numbers without a fraction.
func show(_ value: JSONValue?) -> String {
    if let d = value?.doubleValue, d.rounded() == d { return String(Int(d)) }
    return value?.stringValue ?? value?.jsonText ?? ""
}

let args = Array(CommandLine.arguments.dropFirst())
guard !args.isEmpty else {
    print("usage: calculator-client SERVER_COMMAND [ARGS...] | calculator-client --http URL")
    exit(2)
}
let handlers = ClientHandlers(notification: { method, params in
    if method == "notifications/message" { print("log \(show(params["level"])): \(show(params["data"]))") }
})
let options: JSONObject = ["name": "calculator-client", "version": "0.1.0"]
let client = args[0] == "--http" && args.count > 1
    ? try await Client.http(url: args[1], options: options, handlers: handlers)
    : try await Client.stdio(command: args[0], arguments: Array(args.dropFirst()), options: options, handlers: handlers)
let info = client.serverInfo["serverInfo"]
print("connected to \(show(info?["name"])) \(show(info?["version"])) (protocol \(client.protocolVersion))")

let tools = try await client.listTools()
print("tools: \(tools.map { show($0["name"]) }.joined(separator: ", "))")

let sum = try await client.callTool(name: "add", arguments: ["a": 2, "b": 3])
print("add(2, 3) = \(show(sum.structuredContent?["sum"]))")

try await client.setLoggingLevel(.debug)
let counted = try await client.callTool(name: "count", arguments: ["n": 3]) { progress in
    print("progress \(show(progress["progress"]))/\(show(progress["total"]))")
}
print("count: \(counted.text)")

let constants = try await client.readResource(uri: "calc://constants")
print("resource calc://constants: \(show(constants["contents"]?[0]?["text"]))")

let prompt = try await client.getPrompt(name: "explain", arguments: ["expression": "2+3"])
print("prompt explain: \(show(prompt["messages"]?[0]?["content"]?["text"]))")
await client.close()
