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
        let container = KeyedEncodingNodeContainer<Key>(encoder: self, node: node, codingPath: codingPath)
        return KeyedEncodingContainer(container)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedEncodingNodeContainer(encoder: self, node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleEncodingNodeContainer(encoder: self)
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
