/// A JSON value (RFC 8259) that keeps what other SDKs' bytes need: object key order and exact number text.
///
/// Parse with `JSONValue(parsing:)`, write with `serialized(style:)`; `description` is the compact text.
/// Literals build values directly:
///
/// ```swift
/// let message: JSONValue = ["text": "héllo", "timetoken": 13406746729185766, "tags": ["a", nil, true]]
/// message.serializedString()  // {"text":"héllo","timetoken":13406746729185766,"tags":["a",null,true]}
/// ```
///
/// Strings are Swift `String`s, so they always hold whole Unicode scalars: a lone UTF-16 surrogate from a
/// `\u` escape is replaced by U+FFFD when parsing (see `init(parsing:maxDepth:)`).
///
/// Equality is structural and ordered: objects compare members in order, numbers compare literal text.
/// Very deep values (tens of thousands of levels) may exhaust the stack when compared, hashed, written or
/// freed; the parser's `maxDepth` keeps parsed values well below that.
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its exact literal text.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in document order.
    case object(JSONObject)

    /// The nesting limit `init(parsing:maxDepth:)` uses unless told otherwise: 512 levels of arrays and objects.
    @usableFromInline package static let defaultMaxDepth = 512

    /// Whether this is `null`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The Boolean, if this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, if this is a number.
    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The value of the last member named `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element at `index`, if this is an array long enough; `nil` otherwise (never traps).
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of this value (`JSONStyle.compact`).
    public var description: String { serializedString() }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// Creates `null`.
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Creates `true` or `false`.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Creates an integer number.
    public init(integerLiteral value: Int64) {
        self = .number(JSONNumber(value))
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Creates a number written as the shortest text for `value`, which must be finite.
    public init(floatLiteral value: Double) {
        self = .number(JSONNumber(floatLiteral: value))
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Creates a string.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Creates an array.
    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates an object with the members in source order; duplicate keys are all kept.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
