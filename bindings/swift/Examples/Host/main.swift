// A host: one client for many servers of different kinds; it mirrors core/examples/host.rs and
// node/examples/host.mjs. Usage: `host [servers.json]`.
//
// With a Claude Desktop-style configuration file (`{"mcpServers": {...}}`) it connects to its
// servers. Without one it makes its own: the Rust calculator example over stdio (cargo build -p
// mcpweft --examples), this package's Swift calculator over stdio (built beside this example),
// a server this process serves over Streamable HTTP on 127.0.0.1, and a command that fails to
// start. It prints each server's state, the one list of tools, and calls a tool of each ready
// server.
import Foundation
import McpWeft

struct Operands: Decodable { let a: Double; let b: Double }
struct Product: Encodable { let product: Double }

/// A sum or product as a number, anything else as the text of the result.
func shown(_ result: CallToolResult) -> String {
    for key in ["sum", "product"] {
        if let value = result.structuredContent?[key]?.doubleValue { return String(Int(value)) }
    }
    return result.text
}

var http: HTTPServer?
let config: JSONValue
if CommandLine.arguments.count > 1 {
    config = .string(CommandLine.arguments[1])
} else {
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    let target = ProcessInfo.processInfo.environment["MCPWEFT_CARGO_TARGET_DIR"] ?? package + "/../../target"
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    let multiplier = try Server(name: "multiplier", version: "0.1.0")
    try multiplier.addTool("multiply", description: "Multiplies two numbers.") { (o: Operands, _) in
        Product(product: o.a * o.b)
    }
    let served = try await multiplier.serveHTTP(port: 0)
    http = served
    config = [
        "mcpServers": [
            "calc": ["command": .string(target + "/debug/examples/calculator_server")],
            "swiftcalc": ["command": .string(here + "/calculator-server")],
            "times": ["type": "http", "url": .string(served.url)],
            "broken": ["command": "sh", "args": ["-c", "echo 'no API key given' >&2; exit 2"]],
        ]
    ]
}

let host = try await MCPHost.connect(
    config,
    handlers: HostHandlers(notification: { server, method, params in
        if method == "notifications/message" { print("  [\(server)] \(params["data"]?.jsonText ?? "")") }
    }))
for server in host.servers() {
    if case .failed(_, let stderr) = server.state {
        print("\(server.name): failed (\(stderr?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))")
    } else {
        print("\(server.name): \(server.state)")
    }
}
let names = host.tools().compactMap { $0["name"]?.stringValue }
print("tools: \(names.joined(separator: ", "))")
for name in ["calc__add", "swiftcalc__add", "times__multiply"] where names.contains(name) {
    print("\(name)(2, 40) = \(shown(try await host.callTool(name, arguments: ["a": 2, "b": 40])))")
}
await host.close()
try await http?.close()
