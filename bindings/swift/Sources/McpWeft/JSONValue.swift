#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value: tool arguments and results, schemas, and every other protocol payload.
///
/// It is `Codable`, so `JSONValue(encoding:)` and `decode(_:)` move between it and your own
/// `Codable` types, and it can be written as a literal:
/// `let args: JSONValue = ["a": 2, "b": 3.5, "tags": ["x"]]`, a string with interpolations
/// included (`"area \(x)"`). Objects keep the order of their members (see `JSONObject`).
public enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    /// Encodes `value` with `JSONEncoder` and returns it as a JSON value.
    public init<T: Encodable>(encoding value: T) throws {
        if let json = value as? JSONValue {
            self = json
            return
        }
        let data = try JSONEncoder().encode(value)
        self = try JSONValue(parsing: String(decoding: data, as: UTF8.self))
    }

    /// Decodes the value into `type` with `JSONDecoder`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        if let same = self as? T {
            return same
        }
        return try JSONDecoder().decode(T.self, from: Data(jsonText.utf8))
    }

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or `nil` when out of range.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The integer, when this is one (or a double without a fraction).
    public var intValue: Int? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int(d)
        default: return nil
        }
    }

    /// The number as a double, when this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The boolean, when this is one.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// The members, in order, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? container.decode(Int.self) {
            self = .int(i)
        } else if let d = try? container.decode(Double.self) {
            self = .double(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode(JSONObject.self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .int(let i): try container.encode(i)
        case .double(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates a string from a literal with interpolations, such as `"area \(x)"`.
    public init(stringInterpolation: DefaultStringInterpolation) {
        self = .string(String(stringInterpolation: stringInterpolation))
    }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Creates an object of the literal's members, in the order written.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var members = JSONObject()
        for (key, value) in elements {
            members[key] = value
        }
        self = .object(members)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value.
    public var description: String { jsonText }
}
