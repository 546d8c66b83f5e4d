/// The members of a JSON object, in the order they were written, parsed or added.
///
/// Objects keep their order through every conversion of the package (literals, parsing, the
/// JSON text sent to the core), so a schema or a result goes out as it was written. It reads
/// like a dictionary: `object["key"]` gets or sets a member (setting `nil` removes it),
/// `keys` and `values` come in order, and iterating gives `(key, value)` pairs. Setting a key
/// that exists replaces its value in place; a new key goes last. Two objects are equal when
/// they hold the same members, whatever their order, as JSON objects are.
public struct JSONObject: Sendable {
    private var storage: [(key: String, value: JSONValue)]
    private var positions: [String: Int]

    /// Creates an empty object.
    public init() {
        storage = []
        positions = [:]
    }

    /// Creates an object of `entries`, in their order; a repeated key keeps its first place
    /// and its last value.
    public init<S: Sequence>(_ entries: S) where S.Element == (key: String, value: JSONValue) {
        self.init()
        for (key, value) in entries {
            self[key] = value
        }
    }

    /// Creates an object of the members of `dictionary`, in the order of their keys (a
    /// dictionary has none of its own).
    public init(_ dictionary: [String: JSONValue]) {
        self.init(dictionary.sorted { $0.key < $1.key })
    }

    /// The keys, in order.
    public var keys: [String] { storage.map { $0.key } }

    /// The values, in the order of their keys.
    public var values: [JSONValue] { storage.map { $0.value } }

    /// The member `key`, or `nil`; setting `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get { positions[key].map { storage[$0].value } }
        set {
            if let value = newValue {
                updateValue(value, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Sets the member `key` to `value`, in its place when it exists and last otherwise, and
    /// returns the value it replaced.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        if let position = positions[key] {
            let old = storage[position].value
            storage[position].value = value
            return old
        }
        positions[key] = storage.count
        storage.append((key, value))
        return nil
    }

    /// Removes the member `key` and returns its value, or `nil` when there was none.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = positions.removeValue(forKey: key) else { return nil }
        let removed = storage.remove(at: position)
        for index in position..<storage.count {
            positions[storage[index].key] = index
        }
        return removed.value
    }

    /// The object with each value transformed, in the same order.
    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        var mapped = self
        for index in mapped.storage.indices {
            mapped.storage[index].value = try transform(mapped.storage[index].value)
        }
        return mapped
    }

    /// The members as a dictionary, for code that needs one; the order is lost.
    public var dictionary: [String: JSONValue] {
        Dictionary(storage.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}

extension JSONObject: RandomAccessCollection {
    /// The position of the first member.
    public var startIndex: Int { storage.startIndex }

    /// The position after the last member.
    public var endIndex: Int { storage.endIndex }

    /// The member at `position`, as a `(key, value)` pair.
    public subscript(position: Int) -> (key: String, value: JSONValue) { storage[position] }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// The type of the members' names.
    public typealias Key = String
    /// The type of the members' values.
    public typealias Value = JSONValue

    /// Creates an object of the literal's members, in the order written; a repeated key keeps
    /// its first place and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init()
        for (key, value) in elements {
            self[key] = value
        }
    }
}

extension JSONObject: Equatable, Hashable {
    /// Whether both objects hold the same members, whatever their order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.count == rhs.count && lhs.storage.allSatisfy { rhs[$0.key] == $0.value }
    }

    /// Hashes the members without their order, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        var members = 0
        for (key, value) in storage {
            var member = Hasher()
            member.combine(key)
            member.combine(value)
            members ^= member.finalize()
        }
        hasher.combine(count)
        hasher.combine(members)
    }
}

extension JSONObject: Codable {
    /// A member name as a coding key.
    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            return nil
        }
    }

    /// Decodes the members in the order the decoder lists them (Foundation's `JSONDecoder`
    /// lists them in no particular order; `JSONValue(parsing:)` keeps the text's).
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: MemberKey.self)
        self.init()
        for key in container.allKeys {
            self[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
    }

    /// Encodes the members in order.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for (key, value) in storage {
            try container.encode(value, forKey: MemberKey(stringValue: key))
        }
    }
}

extension JSONObject: CustomStringConvertible {
    /// The compact JSON text of the object.
    public var description: String { JSONValue.object(self).jsonText }
}

extension JSONObject {
    /// An object of the members of `entries` that have a value, in order.
    init(compacting entries: KeyValuePairs<String, JSONValue?>) {
        self.init()
        for case let (key, value?) in entries {
            self[key] = value
        }
    }
}
