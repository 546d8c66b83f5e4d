/// JSON text in and out: how values cross to the Rust core. It is written by hand because it
/// runs on every call, where Foundation's coders would cost more than the call itself. Both
/// directions work on the UTF-8 bytes and look at sixteen bytes at a time for the next byte
/// that matters in a string (one to escape when writing, the closing quote or an escape when
/// parsing), copying each run between them at once: a 64 KiB text is scanned and copied, not
/// handled character by character.
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
        var writer = JSONWriter()
        // Without a bound the writing cannot fail.
        try? writer.write(self, depth: 0, bound: Int.max)
        return writer.text
    }

    /// How deeply a handler's result may nest arrays and objects: 128 levels, as the core reads
    /// and as Python's conversion allows.
    public static let maxResultDepth = 128

    /// The compact JSON text of a handler's result, refused when it nests deeper than
    /// `maxResultDepth`, before the recursive writing could exhaust the task's stack.
    func boundedJSONText() throws -> String {
        var writer = JSONWriter()
        try writer.write(self, depth: 0, bound: JSONValue.maxResultDepth)
        return writer.text
    }

    fileprivate static func tooDeep(_ bound: Int) -> MCPError {
        MCPError(kind: .handler, message: "the result is nested deeper than \(bound) levels")
    }
}

/// Finds the next byte of a JSON string that matters with vector compares: sixteen bytes are
/// tested at once, sixty-four per step of the loop, and only the last few bytes one by one.
/// A release build compiles a step to a few vector instructions (SSE2 on x86-64), about half
/// the instructions of the integer arithmetic on two words used before. The test of a chunk
/// reads its compare results as two words rather than through Swift's generic `any`, whose
/// reduction a debug build does not specialize: with it a debug build scanned some twenty times
/// slower than with the words' arithmetic, without it no slower.
private enum JSONScan {
    /// The index of the first byte at or after `start` that a JSON string must escape (a
    /// control character, `"` or `\`), or the count of `bytes`.
    static func firstToEscape(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        first(in: bytes, from: start, controls: true)
    }

    /// The index of the first `"` or `\` at or after `start`, or the count of `bytes`.
    static func firstQuoteOrBackslash(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        first(in: bytes, from: start, controls: false)
    }

    /// Whether any lane of `mask` is set.
    @inline(__always) private static func any(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let words = unsafeBitCast(mask, to: (UInt64, UInt64).self)
        return words.0 | words.1 != 0
    }

    @inline(__always)
    private static func first(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, controls: Bool) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        let quotes = SIMD16<UInt8>(repeating: 0x22)
        let backslashes = SIMD16<UInt8>(repeating: 0x5C)
        let spaces = SIMD16<UInt8>(repeating: 0x20)
        // The lanes of the sixteen bytes at `offset` that are `"` or `\`, or, with `controls`,
        // below 0x20 (an unsigned compare: a byte of 0x80 or more never matches).
        func matches(at offset: Int) -> SIMDMask<SIMD16<Int8>> {
            let chunk = raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
            let found = (chunk .== quotes) .| (chunk .== backslashes)
            return controls ? found .| (chunk .< spaces) : found
        }
        var index = start
        while count &- index >= 64 {
            let found = matches(at: index) .| matches(at: index &+ 16) .| matches(at: index &+ 32) .| matches(at: index &+ 48)
            if any(found) { break }
            index &+= 64
        }
        while count &- index >= 16 {
            if any(matches(at: index)) { break }
            index &+= 16
        }
        while index < count {
            let byte = base[index]
            if byte == 0x22 || byte == 0x5C || (controls && byte < 0x20) { return index }
            index += 1
        }
        return index
    }
}

/// Writes compact JSON text straight into a `String`, appending each run of a string's text
/// between the bytes it must escape (all of it, most often) without converting it again.
private struct JSONWriter {
    var text = ""

    mutating func write(_ value: JSONValue, depth: Int, bound: Int) throws {
        switch value {
        case .null: text += "null"
        case .bool(let b): text += b ? "true" : "false"
        case .int(let i): text += String(i)
        case .double(let d):
            if !d.isFinite {
                text += "null"
            } else if d.rounded() == d && abs(d) < 1e15 {
                text += String(Int(d)) + ".0"
            } else {
                text += String(d)
            }
        case .string(let s): writeString(s)
        case .array(let items):
            guard depth < bound else { throw JSONValue.tooDeep(bound) }
            text += "["
            for (i, item) in items.enumerated() {
                if i > 0 { text += "," }
                try write(item, depth: depth + 1, bound: bound)
            }
            text += "]"
        case .object(let members):
            guard depth < bound else { throw JSONValue.tooDeep(bound) }
            text += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { text += "," }
                writeString(member.key)
                text += ":"
                try write(member.value, depth: depth + 1, bound: bound)
            }
            text += "}"
        }
    }

    /// Writes `s` as a JSON string, quoted and escaped as serde_json escapes.
    mutating func writeString(_ s: String) {
        let written: Void? = s.utf8.withContiguousStorageIfAvailable { writeString(s, utf8: $0) }
        if written == nil {
            var contiguous = s
            contiguous.makeContiguousUTF8()
            writeString(contiguous)
        }
    }

    /// Writes `s`, whose UTF-8 bytes are `utf8`.
    private mutating func writeString(_ s: String, utf8: UnsafeBufferPointer<UInt8>) {
        if utf8.count >= 1024 {
            // Room for a large string and its quotes at once, growing geometrically so that many
            // large strings do not each reallocate.
            let count = text.utf8.count
            text.reserveCapacity(Swift.max(count + utf8.count + 2, 2 * count))
        }
        text += "\""
        var start = 0
        var index = JSONScan.firstToEscape(utf8, from: 0)
        if index == utf8.count {
            text += s
        } else {
            let view = s.utf8
            while index < utf8.count {
                // The bytes to escape are ASCII, so the runs between them are whole characters.
                text.append(contentsOf: s[view.index(view.startIndex, offsetBy: start)..<view.index(view.startIndex, offsetBy: index)])
                let byte = utf8[index]
                switch byte {
                case UInt8(ascii: "\""): text += "\\\""
                case UInt8(ascii: "\\"): text += "\\\\"
                case UInt8(ascii: "\n"): text += "\\n"
                case UInt8(ascii: "\r"): text += "\\r"
                case UInt8(ascii: "\t"): text += "\\t"
                default:
                    text += "\\u00"
                    text.unicodeScalars.append(JSONWriter.hexDigits[Int(byte >> 4)])
                    text.unicodeScalars.append(JSONWriter.hexDigits[Int(byte & 0xF)])
                }
                start = index + 1
                index = JSONScan.firstToEscape(utf8, from: start)
            }
            text.append(contentsOf: s[view.index(view.startIndex, offsetBy: start)...])
        }
        text += "\""
    }

    static let hexDigits: [Unicode.Scalar] = Array("0123456789abcdef".unicodeScalars)
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
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
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
        index = JSONScan.firstQuoteOrBackslash(bytes, from: index)
        guard index < bytes.count else { throw failure("unterminated string") }
        guard bytes[index] == UInt8(ascii: "\"") else { return try parseEscapedString(from: start) }
        let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        index += 1
        return s
    }

    /// Parses the rest of a string that has escapes, from its first backslash at `index`: its
    /// UTF-8 bytes are gathered (each run between escapes copied at once) and decoded once.
    mutating func parseEscapedString(from start: Int) throws -> String {
        var utf8: [UInt8] = []
        utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") {
                return String(decoding: utf8, as: UTF8.self)
            }
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
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
                        UTF8.encode("\u{FFFD}") { utf8.append($0) }
                        code = low
                    }
                }
                UTF8.encode(Unicode.Scalar(code) ?? "\u{FFFD}") { utf8.append($0) }
            default: throw failure("invalid escape")
            }
            let run = index
            index = JSONScan.firstQuoteOrBackslash(bytes, from: index)
            utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
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
