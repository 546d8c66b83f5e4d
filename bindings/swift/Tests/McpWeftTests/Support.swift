import Foundation
import McpWeft
import XCTest

#if canImport(Glibc)
import Glibc
let streamSocket = Int32(SOCK_STREAM.rawValue)
let closeSocket = Glibc.close
#elseif canImport(Darwin)
import Darwin
let streamSocket = SOCK_STREAM
let closeSocket = Darwin.close
#endif

/// A loopback listening socket, and its port.
func listeningSocket() -> (Int32, Int) {
    let fd = socket(AF_INET, streamSocket, 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    _ = listen(fd, 16)
    var bound = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &bound) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, Int(UInt16(bigEndian: bound.sin_port)))
}

/// A small HTTP/1.1 server on loopback for the tests: one connection at a time, each request
/// answered by `respond(port, method, path, body)` and the connection closed.
final class TinyHTTPServer: @unchecked Sendable {
    typealias Respond = @Sendable (Int, String, String, String) -> (Int, String, [String: String])
    let port: Int
    private let fd: Int32

    init(respond: @escaping Respond) {
        (fd, port) = listeningSocket()
        let (fd, port) = (fd, port)
        Thread.detachNewThread {
            while true {
                let connection = accept(fd, nil, nil)
                if connection < 0 { return }
                TinyHTTPServer.answer(connection) { respond(port, $0, $1, $2) }
                _ = closeSocket(connection)
            }
        }
    }

    func stop() {
        _ = shutdown(fd, Int32(SHUT_RDWR))
        _ = closeSocket(fd)
    }

    private static func answer(
        _ connection: Int32, _ respond: (String, String, String) -> (Int, String, [String: String])
    ) {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            if let end = headerEnd, data.count >= end + contentLength { break }
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { return }
            data.append(contentsOf: buffer[0..<count])
            if headerEnd == nil, let range = String(decoding: data, as: UTF8.self).range(of: "\r\n\r\n") {
                let head = String(decoding: data, as: UTF8.self)[..<range.lowerBound]
                headerEnd = head.utf8.count + 4
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    contentLength = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        let text = String(decoding: data, as: UTF8.self)
        let requestLine = text.prefix { $0 != "\r" }.split(separator: " ")
        let body = String(decoding: data[(headerEnd ?? data.count)...], as: UTF8.self)
        let (status, payload, headers) = respond(String(requestLine[0]), String(requestLine[1]), body)
        var response = "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nConnection: close\r\n"
        for (name, value) in headers { response += "\(name): \(value)\r\n" }
        response += "Content-Length: \(payload.utf8.count)\r\n\r\n\(payload)"
        let bytes = Array(response.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            sent += count
        }
    }
}

/// Collects values from handlers running on any task.
actor Recorder<Value: Sendable> {
    private(set) var items: [Value] = []

    func add(_ item: Value) {
        items.append(item)
    }
}

/// Waits, bounded, until `condition` holds.
func eventually(
    _ what: String, timeout: Duration = .seconds(10), _ condition: @Sendable () async -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    XCTFail("never happened: \(what)")
}

/// The folders the tests find programs in.
enum Paths {
    /// The Swift package.
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// The Cargo target folder.
    static let cargoTarget = ProcessInfo.processInfo.environment["MCPWEFT_CARGO_TARGET_DIR"] ?? package + "/../../target"

    /// A product of this package, built beside the tests.
    static func product(_ name: String) -> String {
        let tests = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return tests.deletingLastPathComponent().appendingPathComponent(name).path
    }
}

struct Operands: Codable, Sendable {
    let a: Double
    let b: Double
}

struct Sum: Codable, Equatable, Sendable {
    let sum: Double
}

struct Oops: Error, CustomStringConvertible {
    var description: String { "it broke" }
}

/// The server most tests talk to.
func makeServer() throws -> Server {
    let server = try Server(name: "swift-test", version: "1.2.3", settings: ["instructions": "Be nice.", "pageSize": 2])
    try server.addTool("echo", description: "Echoes its arguments.") { (args: JSONValue, _: Context) in args }
    let operands: JSONValue = [
        "type": "object", "properties": ["a": ["type": "number"], "b": ["type": "number"]], "required": ["a", "b"],
    ]
    try server.addTool("add", description: "Adds two numbers.", inputSchema: operands) { (o: Operands, _: Context) in
        Sum(sum: o.a + o.b)
    }
    try server.addTool("fail") { (args: JSONValue, _: Context) -> JSONValue in
        if let code = args["code"]?.intValue { throw MCPError(code: code, message: "chosen error", data: ["why": "test"]) }
        throw Oops()
    }
    try server.addTool("slow") { (args: JSONValue, ctx: Context) -> JSONValue in
        try ctx.reportProgress(1, total: 2, message: "half")
        try ctx.log(.info, "working", logger: "slow")
        try await Task.sleep(for: .milliseconds(100))
        return args
    }
    try server.addResource("mem://readme", name: "readme", mimeType: "text/markdown") { _, _ in "# Hi" }
    try server.addResourceTemplate("mem://users/{id}", name: "user") { request, _ in
        guard request.variables["id"] != "0" else { throw MCPError.resourceNotFound(request.uri) }
        return ["id": request.variables["id"] ?? nil]
    }
    try server.addPrompt("greet", description: "Greets.", arguments: [PromptArgument("who", required: true)]) { args, _ in
        .string("Hello \(args["who"] ?? "")")
    }
    server.setCompletion { request, _ in
        .array(["\(request.value)-1", "\(request.value)-\(request.arguments["lang"] ?? "en")"].map(JSONValue.string))
    }
    return server
}
