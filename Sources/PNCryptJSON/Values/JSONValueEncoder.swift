/// Turns any `Encodable` value into a `JSONValue`, so a client can publish its own types.
///
/// - Object members appear in the order `encode(to:)` writes them (synthesized conformances: declaration
///   order). Encoding a key twice in one container replaces the value in its first position.
/// - `Int64`, `UInt64` and every other integer type are kept exactly; `Double` and `Float` are written as their
///   shortest round-trip text. NaN and infinity throw `EncodingError.invalidValue`.
/// - `nil` Optionals are left out by synthesized conformances (`encodeIfPresent`); `encodeNil` writes `null`.
/// - A `JSONValue` inside the value is inserted as it is.
/// - A value that encodes nothing becomes `{}`.
///
/// ```swift
/// struct Chat: Codable { var text: String; var timetoken: UInt64 }
/// let json = try JSONValueEncoder().encode(Chat(text: "hi", timetoken: 13406746729185766))
/// json.serializedString()  // {"text":"hi","timetoken":13406746729185766}
/// ```
package struct JSONValueEncoder: Sendable {
    /// Context for custom `encode(to:)` implementations, passed as `Encoder.userInfo`.
    package var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder.
    package init() {}

    /// Encodes `value` into a `JSONValue`; throws `EncodingError` when it cannot be represented.
    package func encode(_ value: some Encodable) throws -> JSONValue {
        if let json = value as? JSONValue { return json }
        let encoder = ValueEncoder(node: EncodingNode(), codingPath: [], userInfo: userInfo)
        try value.encode(to: encoder)
        return encoder.node.jsonValue()
    }
}

// MARK: - Implementation

/// A container under construction. A class, because nested containers and super-encoders keep writing into
/// it after the call that created it has returned.
final class EncodingNode {
    package enum Kind {
        case unset, single, array, object
    }

    /// A finished value, or a node still being written.
    enum Child {
        case value(JSONValue)
        case node(EncodingNode)

        func jsonValue() -> JSONValue {
            switch self {
            case .value(let value): return value
            case .node(let node): return node.jsonValue()
            }
        }
    }

    package var kind: Kind = .unset
    package var single: JSONValue = .null
    package var elements: [Child] = []
    package var keys: [String] = []
    package var members: [Child] = []
    package var keyIndex: [String: Int] = [:]

    func becomeArray() {
        if kind != .array {
            kind = .array
            elements = []
        }
    }

    func becomeObject() {
        if kind != .object {
            kind = .object
            keys = []
            members = []
            keyIndex = [:]
        }
    }

    func setSingle(_ value: JSONValue) {
        kind = .single
        single = value
    }

    package func set(_ child: Child, forKey key: String) {
        becomeObject()
        if let index = keyIndex[key] {
            members[index] = child
        } else {
            keyIndex[key] = keys.count
            keys.append(key)
            members.append(child)
        }
    }

    package func append(_ child: Child) {
        becomeArray()
        elements.append(child)
    }

    func jsonValue() -> JSONValue {
        switch kind {
        case .unset: return .object(JSONObject())
        case .single: return single
        case .array: return .array(elements.map { $0.jsonValue() })
        case .object: return .object(JSONObject(keys: keys, values: members.map { $0.jsonValue() }))
        }
    }
}

/// A coding key made from a string or an index.
struct AnyCodingKey: CodingKey {
    package var stringValue: String
    var intValue: Int?

    package init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    package init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    static let superKey = AnyCodingKey(stringValue: "super")
}

final class ValueEncoder: CodingState, Encoder {
    package let node: EncodingNode

    package init(node: EncodingNode, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.node = node
        super.init(codingPath: codingPath, userInfo: userInfo)
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedContainer(encoder: self, node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(encoder: self)
    }

    /// Encodes a nested value found at `path`.
    func box(_ value: some Encodable, at path: [any CodingKey]) throws -> EncodingNode.Child {
        switch value {
        case let json as JSONValue: return .value(json)
        case let string as String: return .value(.string(string))
        case let flag as Bool: return .value(.bool(flag))
        case let int as Int: return .value(.number(JSONNumber(int)))
        case let int as Int64: return .value(.number(JSONNumber(int)))
        case let int as UInt64: return .value(.number(JSONNumber(int)))
        case let double as Double: return .value(try ValueEncoder.number(double, at: path))
        default:
            let child = ValueEncoder(node: EncodingNode(), codingPath: path, userInfo: sendableUserInfo)
            try value.encode(to: child)
            if child.node.kind == .single { return .value(child.node.single) }
            return .node(child.node)
        }
    }

    package static func number(_ value: Double, at path: [any CodingKey]) throws -> JSONValue {
        guard let number = JSONNumber(value) else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: path, debugDescription: "JSON cannot represent \(value)"))
        }
        return .number(number)
    }

    package static func number(_ value: Float, at path: [any CodingKey]) throws -> JSONValue {
        guard let number = JSONNumber(value) else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: path, debugDescription: "JSON cannot represent \(value)"))
        }
        return .number(number)
    }

    package static func integer(_ value: some FixedWidthInteger) -> JSONValue {
        if let small = Int64(exactly: value) { return .number(JSONNumber(small)) }
        return .number(JSONNumber(UInt64(value)))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    package let encoder: ValueEncoder
    package let node: EncodingNode
    package let codingPath: [any CodingKey]

    private func put(_ value: JSONValue, _ key: Key) {
        node.set(.value(value), forKey: key.stringValue)
    }

    package mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    package mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    package mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    package mutating func encode(_ value: Double, forKey key: Key) throws {
        put(try ValueEncoder.number(value, at: codingPath + [key]), key)
    }
    package mutating func encode(_ value: Float, forKey key: Key) throws {
        put(try ValueEncoder.number(value, at: codingPath + [key]), key)
    }
    package mutating func encode(_ value: Int, forKey key: Key) throws { put(ValueEncoder.integer(value), key) }
    package mutating func encode(_ value: Int8, forKey key: Key) throws { put(ValueEncoder.integer(value), key) }
    package mutating func encode(_ value: Int16, forKey key: Key) throws { put(ValueEncoder.integer(value), key) }
    package mutating func encode(_ value: Int32, forKey key: Key) throws { put(ValueEncoder.integer(value), key) }
    package mutating func encode(_ value: Int64, forKey key: Key) throws { put(ValueEncoder.integer(value), key) }
    package mutating func encode(_ value: UInt, forKey key: Key) throws { put(ValueEncoder.integer(value), key) }
    package mutating func encode(_ value: UInt8, forKey key: Key) throws { put(ValueEncoder.integer(value), key) }
    package mutating func encode(_ value: UInt16, forKey key: Key) throws { put(ValueEncoder.integer(value), key) }
    package mutating func encode(_ value: UInt32, forKey key: Key) throws { put(ValueEncoder.integer(value), key) }
    package mutating func encode(_ value: UInt64, forKey key: Key) throws { put(ValueEncoder.integer(value), key) }

    package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.set(try encoder.box(value, at: codingPath + [key]), forKey: key.stringValue)
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingNode()
        child.becomeObject()
        node.set(.node(child), forKey: key.stringValue)
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(encoder: encoder, node: child, codingPath: codingPath + [key]))
    }

    package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodingNode()
        child.becomeArray()
        node.set(.node(child), forKey: key.stringValue)
        return UnkeyedContainer(encoder: encoder, node: child, codingPath: codingPath + [key])
    }

    package mutating func superEncoder() -> any Encoder {
        superEncoder(forKeyString: AnyCodingKey.superKey)
    }

    package mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(forKeyString: key)
    }

    private func superEncoder(forKeyString key: any CodingKey) -> any Encoder {
        let child = EncodingNode()
        node.set(.node(child), forKey: key.stringValue)
        return ValueEncoder(node: child, codingPath: codingPath + [key], userInfo: encoder.sendableUserInfo)
    }
}

/// The containers that write one value at a time (an array's next element, a single value): their scalar encodes,
/// written once for both.
private protocol ValueContainer {
    /// The path a number's error names: the element's own.
    var valuePath: [any CodingKey] { get }
    func put(_ value: JSONValue)
}

extension ValueContainer {
    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(try ValueEncoder.number(value, at: valuePath)) }
    mutating func encode(_ value: Float) throws { put(try ValueEncoder.number(value, at: valuePath)) }
    mutating func encode(_ value: Int) throws { put(ValueEncoder.integer(value)) }
    mutating func encode(_ value: Int8) throws { put(ValueEncoder.integer(value)) }
    mutating func encode(_ value: Int16) throws { put(ValueEncoder.integer(value)) }
    mutating func encode(_ value: Int32) throws { put(ValueEncoder.integer(value)) }
    mutating func encode(_ value: Int64) throws { put(ValueEncoder.integer(value)) }
    mutating func encode(_ value: UInt) throws { put(ValueEncoder.integer(value)) }
    mutating func encode(_ value: UInt8) throws { put(ValueEncoder.integer(value)) }
    mutating func encode(_ value: UInt16) throws { put(ValueEncoder.integer(value)) }
    mutating func encode(_ value: UInt32) throws { put(ValueEncoder.integer(value)) }
    mutating func encode(_ value: UInt64) throws { put(ValueEncoder.integer(value)) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer, ValueContainer {
    package let encoder: ValueEncoder
    package let node: EncodingNode
    package let codingPath: [any CodingKey]

    package var count: Int { node.elements.count }

    private var nextKey: AnyCodingKey { AnyCodingKey(intValue: node.elements.count) }
    fileprivate var valuePath: [any CodingKey] { codingPath + [nextKey] }

    fileprivate func put(_ value: JSONValue) {
        node.append(.value(value))
    }


    package mutating func encode<T: Encodable>(_ value: T) throws {
        node.append(try encoder.box(value, at: codingPath + [nextKey]))
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let key = nextKey
        let child = EncodingNode()
        child.becomeObject()
        node.append(.node(child))
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(encoder: encoder, node: child, codingPath: codingPath + [key]))
    }

    package mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = nextKey
        let child = EncodingNode()
        child.becomeArray()
        node.append(.node(child))
        return UnkeyedContainer(encoder: encoder, node: child, codingPath: codingPath + [key])
    }

    package mutating func superEncoder() -> any Encoder {
        let key = nextKey
        let child = EncodingNode()
        node.append(.node(child))
        return ValueEncoder(node: child, codingPath: codingPath + [key], userInfo: encoder.sendableUserInfo)
    }
}

private struct SingleContainer: SingleValueEncodingContainer, ValueContainer {
    package let encoder: ValueEncoder

    package var codingPath: [any CodingKey] { encoder.codingPath }
    fileprivate var valuePath: [any CodingKey] { codingPath }

    fileprivate func put(_ value: JSONValue) {
        encoder.node.setSingle(value)
    }


    package mutating func encode<T: Encodable>(_ value: T) throws {
        switch try encoder.box(value, at: codingPath) {
        case .value(let json):
            put(json)
        case .node(let child):
            let node = encoder.node
            node.kind = child.kind
            node.single = child.single
            node.elements = child.elements
            node.keys = child.keys
            node.members = child.members
            node.keyIndex = child.keyIndex
        }
    }
}

extension JSONValue {
    /// The JSON tree of an `Encodable` value (its `encode(to:)` written as JSON values: integers and decimal numbers
    /// exact, keys in the order they are encoded).
    /// - Parameter value: the value to encode.
    /// - Throws: the value's own encoding errors, or an `EncodingError` for a non-finite floating-point number.
    public init(encoding value: some Encodable) throws {
        self = try JSONValueEncoder().encode(value)
    }
}
