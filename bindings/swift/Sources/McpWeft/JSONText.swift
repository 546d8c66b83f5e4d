/// JSON text in and out: how values cross to the Rust core. It is written by hand because it
/// runs on every call, where Foundation's coders would cost more than the call itself.
extension JSONValue {
    /// Parses JSON text.
    public init(parsing text: String) throws {
        var text = text
        self = try text.withUTF8 { bytes in
            var parser = JSONParser(bytes: bytes)
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.index == bytes.count else { throw parser.failure("unexpected text after the value") }
            return value
        }
    }

    /// The compact JSON text of the value, with the members of objects in their order.
    public var jsonText: String {
        var out = ""
        // Without a bound the writing cannot fail.
        try? write(to: &out, depth: 0, bound: Int.max)
        return out
    }

    /// How deeply a handler's result may nest arrays and objects: 128 levels, as the core reads
    /// and as Python's conversion allows.
    public static let maxResultDepth = 128

    /// The compact JSON text of a handler's result, refused when it nests deeper than
    /// `maxResultDepth`, before the recursive writing could exhaust the task's stack.
    func boundedJSONText() throws -> String {
        var out = ""
        try write(to: &out, depth: 0, bound: JSONValue.maxResultDepth)
        return out
    }

    private func write(to out: inout String, depth: Int, bound: Int) throws {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if !d.isFinite {
                out += "null"
            } else if d.rounded() == d && abs(d) < 1e15 {
                out += String(Int(d)) + ".0"
            } else {
                out += String(d)
            }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            guard depth < bound else { throw JSONValue.tooDeep(bound) }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                try item.write(to: &out, depth: depth + 1, bound: bound)
            }
            out += "]"
        case .object(let members):
            guard depth < bound else { throw JSONValue.tooDeep(bound) }
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(member.key, to: &out)
                out += ":"
                try member.value.write(to: &out, depth: depth + 1, bound: bound)
            }
            out += "}"
        }
    }

    private static func tooDeep(_ bound: Int) -> MCPError {
        MCPError(kind: .handler, message: "the result is nested deeper than \(bound) levels")
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        var plain = true
        for byte in s.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            plain = false
            break
        }
        if plain {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

/// A recursive-descent parser over UTF-8 bytes.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    static let maxDepth = 512

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func failure(_ what: String) -> MCPError {
        MCPError(kind: .invalidInput, message: "invalid JSON at byte \(index): \(what)")
    }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) {
            index += 1
        }
    }

    mutating func expect(_ literal: StaticString, _ value: JSONValue) throws -> JSONValue {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("truncated literal") }
        for i in 0..<count where bytes[index + i] != literal.utf8Start[i] {
            throw failure("invalid literal")
        }
        index += count
        return value
    }

    mutating func parseValue(depth: Int) throws -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end") }
        guard depth < JSONParser.maxDepth else { throw failure("nested too deeply") }
        switch bytes[index] {
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "["):
            index += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                items.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw failure("unterminated array") }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "]") { return .array(items) }
                guard byte == UInt8(ascii: ",") else { throw failure("expected , or ]") }
            }
        case UInt8(ascii: "{"):
            index += 1
            var members = JSONObject()
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
                let key = try parseString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected :") }
                index += 1
                members.updateValue(try parseValue(depth: depth + 1), forKey: key)
                skipWhitespace()
                guard index < bytes.count else { throw failure("unterminated object") }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "}") { return .object(members) }
                guard byte == UInt8(ascii: ",") else { throw failure("expected , or }") }
            }
        default: return try parseNumber()
        }
    }

    mutating func parseNumber() throws -> JSONValue {
        let start = index
        var integral = true
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): break
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"): integral = false
            default:
                return try number(from: start, integral: integral)
            }
            index += 1
        }
        return try number(from: start, integral: integral)
    }

    func number(from start: Int, integral: Bool) throws -> JSONValue {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let i = Int(text) { return .int(i) }
        guard !text.isEmpty, let d = Double(text), d.isFinite else { throw failure("invalid number") }
        return .double(d)
    }

    mutating func parseString() throws -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return s
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            index += 1
        }
        throw failure("unterminated string")
    }

    mutating func parseEscapedString(from start: Int) throws -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self).unicodeScalars)
        var pending: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
            pending.removeAll(keepingCapacity: true)
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") {
                flush()
                return String(scalars)
            }
            guard byte == UInt8(ascii: "\\") else {
                pending.append(byte)
                continue
            }
            flush()
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                {
                    index += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        scalars.append("\u{FFFD}")
                        code = low
                    }
                }
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: throw failure("invalid escape")
            }
        }
        throw failure("unterminated string")
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("truncated \\u escape") }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            code = code << 4 | UInt32(digit)
        }
        return code
    }
}
