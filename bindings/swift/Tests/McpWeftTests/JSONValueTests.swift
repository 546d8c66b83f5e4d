import McpWeft
import XCTest

private struct Point: Codable, Equatable {
    let x: Int
    let label: String
    let weight: Double?
}

final class JSONValueTests: XCTestCase {
    func testTextRoundTripsEveryKind() throws {
        let value: JSONValue = [
            "null": nil, "yes": true, "no": false, "int": -42, "big": .int(Int.max), "double": 2.5,
            "whole": .double(5), "string": "héllo \"quoted\" \\ /\n\t\u{01} 🎉", "array": [1, "two", [3]],
            "object": ["nested": ["deep": []]],
        ]
        let text = value.jsonText
        XCTAssertEqual(try JSONValue(parsing: text), value)
        XCTAssertTrue(text.hasPrefix("{\"null\":null,\"yes\":true,\"no\":false,\"int\":-42,\"big\":9223372036854775807,"), text)
        XCTAssertTrue(text.contains("\"whole\":5.0"), "whole doubles keep their fraction, as serde_json writes them")
        XCTAssertTrue(text.contains("\\u0001"), text)
    }

    func testParsingFollowsJSON() throws {
        let parsed = try JSONValue(parsing: " { \"a\" : [ 1 , 2.5e2 , -0.5 , true , null ] , \"s\" : \"\\u00e9\\ud83d\\ude00\\/\" } ")
        XCTAssertEqual(parsed["a"], [1, 250.0, -0.5, true, nil])
        XCTAssertEqual(parsed["s"], "é😀/")
        XCTAssertEqual(try JSONValue(parsing: "123456789012"), .int(123_456_789_012))
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "tru", "\"open", "1 2", "{\"a\":1,}", "\"\\x\""] {
            XCTAssertThrowsError(try JSONValue(parsing: bad), "\(bad) must not parse")
        }
        let deep = String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000)
        XCTAssertThrowsError(try JSONValue(parsing: deep), "nesting is bounded")
    }

    /// The writer and the parser look at sixteen bytes at a time, sixty-four per step: every
    /// byte that matters (and the bytes beside them that do not), at every place in and around
    /// a chunk and a step, must be written and read back as the slow reference below does it.
    func testStringsWithEscapesAtEveryPlace() throws {
        let specials: [String] = [
            "\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{1F}", " ", "!", "[", "]", "\u{7F}", "/", "é",
            "日", "🎉",
        ]
        for length in Array(0..<20) + Array(44..<50) + Array(60..<68) + Array(126..<131) {
            for position in 0...length {
                for special in specials {
                    let plain = String(repeating: "a", count: length)
                    let index = plain.index(plain.startIndex, offsetBy: position)
                    let s = String(plain[..<index]) + special + String(plain[index...])
                    let text = JSONValue.string(s).jsonText
                    XCTAssertEqual(text, referenceText(s), "\(length) \(position) \(special.unicodeScalars.map(\.value))")
                    XCTAssertEqual(try JSONValue(parsing: text), .string(s), text)
                }
            }
        }
    }

    func testLargeStringsConvertOnceWithoutLoss() throws {
        let ascii = String(repeating: "0123456789abcdef", count: 4096)
        XCTAssertEqual(ascii.utf8.count, 65536)
        XCTAssertEqual(JSONValue.string(ascii).jsonText, "\"" + ascii + "\"")
        XCTAssertEqual(try JSONValue(parsing: "\"" + ascii + "\""), .string(ascii))

        let mixed = String(repeating: "héllo wörld 日本語 🎉 \"quoted\" back\\slash\ttab\nline \u{01}|", count: 2000)
        let text = JSONValue.string(mixed).jsonText
        XCTAssertEqual(text, referenceText(mixed))
        XCTAssertEqual(try JSONValue(parsing: text), .string(mixed))

        // The same string with every non-ASCII scalar escaped, the emoji as a surrogate pair.
        var escaped = "\""
        for unit in mixed.utf16 {
            switch unit {
            case 0x22: escaped += "\\\""
            case 0x5C: escaped += "\\\\"
            case 0x20..<0x7F: escaped.unicodeScalars.append(Unicode.Scalar(unit)!)
            default:
                let hex = String(unit, radix: 16, uppercase: unit % 2 == 0)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        escaped += "\""
        XCTAssertEqual(try JSONValue(parsing: escaped), .string(mixed))
    }

    func testSurrogatesThatDoNotPairBecomeReplacementCharacters() throws {
        XCTAssertEqual(try JSONValue(parsing: #""\ud83c\udf89""#), "🎉")
        XCTAssertEqual(try JSONValue(parsing: #""a\ud83cb""#), "a\u{FFFD}b")
        XCTAssertEqual(try JSONValue(parsing: #""\udf89x""#), "\u{FFFD}x")
        XCTAssertEqual(try JSONValue(parsing: #""\ud83c\u0041""#), "\u{FFFD}A")
        XCTAssertEqual(try JSONValue(parsing: #""\ud83c\ud83c\udf89""#), "\u{FFFD}\u{FFFD}\u{FFFD}")
        for bad in [#""abc\"#, #""\u12"#, #""\u12G4""#, #""\q""#, #""ab\"cd"#] {
            XCTAssertThrowsError(try JSONValue(parsing: bad), "\(bad) must not parse")
        }
    }

    func testNestedJSONInsideAndOutsideStrings() throws {
        let leaf: JSONValue = [
            "quote": .string(String(repeating: "say \"hi\"\n\\ é🎉 ", count: 60)), "n": [1, -2.5, true, nil, [:], []],
        ]
        let leafText = leaf.jsonText
        var value = leaf
        for depth in 0..<100 {
            value = ["depth": .int(depth), "inner": value, "text": .string(leafText), "list": [.int(depth), "é🎉", leaf]]
        }
        let text = value.jsonText
        XCTAssertGreaterThan(text.utf8.count, 300_000)
        let parsed = try JSONValue(parsing: text)
        XCTAssertEqual(parsed, value)
        XCTAssertEqual(parsed.jsonText, text)
        XCTAssertEqual(try JSONValue(parsing: parsed["inner"]?["text"]?.stringValue ?? ""), leaf)
        let spaced = " \n{ \"a\" :\t[ \"b\" , { } ] }\r\n"
        XCTAssertEqual(try JSONValue(parsing: spaced), ["a": ["b", [:]]])
    }

    func testAccessorsAndLiterals() {
        let value: JSONValue = ["n": 3, "d": 3.0, "s": "x", "a": [true]]
        XCTAssertEqual(value["n"]?.intValue, 3)
        XCTAssertEqual(value["d"]?.intValue, 3)
        XCTAssertEqual(value["n"]?.doubleValue, 3.0)
        XCTAssertEqual(value["s"]?.stringValue, "x")
        XCTAssertEqual(value["a"]?[0]?.boolValue, true)
        XCTAssertNil(value["a"]?[1])
        XCTAssertNil(value["missing"])
        XCTAssertEqual(value["a"]?.arrayValue?.count, 1)
        XCTAssertEqual(value.objectValue?.count, 4)
        XCTAssertTrue(JSONValue.null.isNull)
        XCTAssertEqual(value.description, value.jsonText)
    }

    func testObjectsKeepTheOrderTheyWereWrittenOrParsedIn() throws {
        let schema: JSONValue = [
            "type": "object", "properties": ["width": ["type": "number"], "height": ["type": "number"], "area": [:]],
            "required": ["width", "height"],
        ]
        XCTAssertEqual(schema.objectValue?.keys, ["type", "properties", "required"])
        XCTAssertEqual(schema["properties"]?.objectValue?.keys, ["width", "height", "area"])
        let text = #"{"type":"object","properties":{"width":{"type":"number"},"height":{"type":"number"},"area":{}},"required":["width","height"]}"#
        XCTAssertEqual(schema.jsonText, text)
        let parsed = try JSONValue(parsing: #"{"z": 1, "a": {"y": true, "b": null}, "m": [], "z": 2}"#)
        XCTAssertEqual(parsed.objectValue?.keys, ["z", "a", "m"], "a repeated key keeps its first place")
        XCTAssertEqual(parsed["z"], 2, "and its last value")
        XCTAssertEqual(parsed.jsonText, #"{"z":2,"a":{"y":true,"b":null},"m":[]}"#)
        XCTAssertEqual(try JSONValue(parsing: parsed.jsonText).jsonText, parsed.jsonText)
        let viaFoundation = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(schema))
        XCTAssertEqual(viaFoundation, schema, "Foundation's coders keep the members, if not always their order")

        var object: JSONObject = ["b": 1, "a": 2]
        object["c"] = 3
        object["b"] = 4
        XCTAssertEqual(object.keys, ["b", "a", "c"], "a new key goes last, a set one stays in place")
        XCTAssertEqual(object.values, [4, 2, 3])
        XCTAssertEqual(object.removeValue(forKey: "b"), 4)
        object["a"] = nil
        XCTAssertEqual(object.keys, ["c"])
        object["d"] = 5
        XCTAssertEqual(object.map { $0.key }, ["c", "d"])
        XCTAssertEqual(object["d"], 5)
        XCTAssertEqual(object.mapValues { .string($0.jsonText) }.values, ["3", "5"])
        XCTAssertEqual(JSONObject(["y": 1, "x": 2]).keys, ["x", "y"], "a dictionary's members come sorted")

        let ab: JSONValue = ["a": 1, "b": [1, 2]]
        let ba: JSONValue = ["b": [1, 2], "a": 1]
        XCTAssertEqual(ab, ba, "objects are equal whatever the order of their members")
        XCTAssertEqual(ab.hashValue, ba.hashValue)
        XCTAssertEqual(Set([ab, ba]).count, 1)
        XCTAssertNotEqual(ab, ["a": 1, "b": [2, 1]] as JSONValue)
        XCTAssertNotEqual(ab, ["a": 1] as JSONValue)
    }

    func testInterpolatedLiteralsAreStrings() {
        let x = 6.5
        let value: JSONValue = "area \(x) of \("room")"
        XCTAssertEqual(value, .string("area 6.5 of room"))
        let object: JSONValue = ["label": "n=\(3)"]
        XCTAssertEqual(object["label"]?.stringValue, "n=3")
    }

    func testCodableTypesConvertBothWays() throws {
        let point = Point(x: 3, label: "p", weight: 0.25)
        let value = try JSONValue(encoding: point)
        XCTAssertEqual(value, ["x": 3, "label": "p", "weight": 0.25])
        XCTAssertEqual(try value.decode(Point.self), point)
        let wrong: JSONValue = ["x": "three"]
        XCTAssertThrowsError(try wrong.decode(Point.self))
        let viaFoundation = try JSONDecoder().decode(JSONValue.self, from: Data(value.jsonText.utf8))
        XCTAssertEqual(viaFoundation, value)
        let encoded = try JSONEncoder().encode(value)
        XCTAssertEqual(try JSONValue(parsing: String(decoding: encoded, as: UTF8.self)), value)
    }

    func testErrorCodesMatchTheBridgeTable() {
        let table = MCPError.bridgeCodes
        XCTAssertEqual(table.count, 8)
        XCTAssertEqual(table["ParseError"], MCPError.Code.parseError)
        XCTAssertEqual(table["InvalidRequest"], MCPError.Code.invalidRequest)
        XCTAssertEqual(table["MethodNotFound"], MCPError.Code.methodNotFound)
        XCTAssertEqual(table["InvalidParams"], MCPError.Code.invalidParams)
        XCTAssertEqual(table["InternalError"], MCPError.Code.internalError)
        XCTAssertEqual(table["RequestTimeout"], MCPError.Code.requestTimeout)
        XCTAssertEqual(table["ResourceNotFound"], MCPError.Code.resourceNotFound)
        XCTAssertEqual(table["UrlElicitationRequired"], MCPError.Code.urlElicitationRequired)
    }

    /// Every kind of the bridge has its `MCPError.Kind`, and no other: a kind added to the
    /// bridge fails this test until the Swift layer has it.
    func testErrorKindsMatchTheBridgeTable() {
        let table = MCPError.bridgeKinds
        let names = table.compactMap { $0["name"]?.stringValue }
        XCTAssertEqual(names.count, table.count)
        XCTAssertEqual(Set(names), Set(MCPError.Kind.allCases.map(\.rawValue)))
        for row in table {
            XCTAssertNotNil(MCPError.Kind(rawValue: row["name"]?.stringValue ?? ""), "\(row)")
            XCTAssertFalse(row["meaning"]?.stringValue?.isEmpty ?? true, "\(row)")
        }
    }
}

/// The JSON text of `s` as written one scalar at a time, the way serde_json escapes.
private func referenceText(_ s: String) -> String {
    var out = "\""
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
    return out + "\""
}
