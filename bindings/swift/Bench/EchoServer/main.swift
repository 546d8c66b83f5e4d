// The benchmark's echo server written with McpWeft (`make bench`): `echo-server` serves stdio,
// `echo-server --http PORT` serves Streamable HTTP at http://127.0.0.1:PORT/mcp with plain
// JSON replies and stateful sessions, like bench/src/bin/mcpweft-echo-http.rs.
import McpWeft

let server = try Server(name: "mcpweft-swift-echo", version: "1.0.0")
let schema: JSONValue = ["type": "object", "properties": ["text": ["type": "string"]], "required": ["text"]]
try server.addTool("echo", description: "Returns the given text unchanged.", inputSchema: schema) { args, _ in
    args["text"] ?? ""
}
let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--http", let port = Int(arguments[2]) {
    let http = try await server.serveHTTP(port: port, options: ["jsonResponse": true, "stateful": true])
    try await http.wait()
} else {
    try await server.serveStdio()
}
