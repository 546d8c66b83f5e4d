// A small calculator MCP server over stdio: tools, a resource, a template, a prompt and
// completions; it mirrors core/examples/calculator_server.rs. `--http PORT` serves
// Streamable HTTP at http://127.0.0.1:PORT/mcp instead.
import Foundation
import McpWeft

struct Operands: Decodable { let a: Double; let b: Double }
struct Sum: Encodable { let sum: Double }
struct Quotient: Encodable { let quotient: Double }
struct Count: Decodable { let n: Int }
struct DivisionByZero: Error, CustomStringConvertible { var description: String { "division by zero" } }

let constants: JSONValue = ["pi": .double(Double.pi), "e": .double(M_E)]
let operands: JSONValue = [
    "type": "object", "properties": ["a": ["type": "number"], "b": ["type": "number"]], "required": ["a", "b"],
]
func output(_ name: String) -> JSONObject {
    ["outputSchema": ["type": "object", "properties": [name: ["type": "number"]], "required": [.string(name)]]]
}

let server = try Server(name: "calculator", version: "0.1.0", settings: [
    "instructions": "A calculator: use add and divide for arithmetic, count to see progress.",
])
try server.addTool("add", description: "Adds two numbers.", inputSchema: operands, descriptor: output("sum")) {
    (o: Operands, _) in Sum(sum: o.a + o.b)
}
try server.addTool("divide", description: "Divides a by b.", inputSchema: operands, descriptor: output("quotient")) {
    (o: Operands, _) in
    guard o.b != 0 else { throw DivisionByZero() }
    return Quotient(quotient: o.a / o.b)
}
let countSchema: JSONValue = [
    "type": "object", "properties": ["n": ["type": "integer", "description": "The number to count to."]], "required": ["n"],
]
try server.addTool("count", description: "Counts to n, reporting progress and logging each step.", inputSchema: countSchema) {
    (c: Count, ctx) in
    for i in stride(from: 1, through: c.n, by: 1) {
        try await Task.sleep(nanoseconds: 10_000_000)
        try ctx.log(.info, .string("step \(i) of \(c.n)"), logger: "calculator")
        try ctx.reportProgress(Double(i), total: Double(c.n))
    }
    return "counted to \(c.n)"
}
try server.addResource("calc://constants", name: "constants", description: "Known constants.", mimeType: "application/json") { _, _ in
    .string(constants.jsonText)
}
try server.addResourceTemplate("calc://constants/{name}", name: "constant") { request, _ in
    guard let name = request.variables["name"]?.stringValue, let value = constants[name] else {
        throw MCPError.resourceNotFound(request.uri)
    }
    return .string(value.jsonText)
}
try server.addPrompt("explain", description: "Asks the model to explain a calculation.",
                     arguments: [PromptArgument("expression", description: "What to compute.", required: true)]) { args, _ in
    .string("Explain step by step how to compute \(args["expression"] ?? "").")
}
server.setCompletion { request, _ in
    .array(["pi", "e"].filter { $0.hasPrefix(request.value) }.map(JSONValue.string))
}

let args = CommandLine.arguments
if let i = args.firstIndex(of: "--http") {
    let port = args.count > i + 1 ? Int(args[i + 1]) ?? 8080 : 8080
    let http = try await server.serveHTTP(port: port)
    FileHandle.standardError.write(Data("serving MCP at \(http.url)\n".utf8))
    try await http.wait()
} else {
    try await server.serveStdio()
}
