// The encoder's three containers (keyed, unkeyed, single value), each writing into an `EncodingNode`
// (JSONValueEncoder.swift).

struct KeyedEncodingNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
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
            KeyedEncodingNodeContainer<NestedKey>(encoder: encoder, node: child, codingPath: codingPath + [key]))
    }

    package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodingNode()
        child.becomeArray()
        node.set(.node(child), forKey: key.stringValue)
        return UnkeyedEncodingNodeContainer(encoder: encoder, node: child, codingPath: codingPath + [key])
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
protocol EncodingNodeContainer {
    /// The path a number's error names: the element's own.
    var valuePath: [any CodingKey] { get }
    func put(_ value: JSONValue)
}

extension EncodingNodeContainer {
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

struct UnkeyedEncodingNodeContainer: UnkeyedEncodingContainer, EncodingNodeContainer {
    package let encoder: ValueEncoder
    package let node: EncodingNode
    package let codingPath: [any CodingKey]

    package var count: Int { node.elements.count }

    private var nextKey: AnyCodingKey { AnyCodingKey(intValue: node.elements.count) }
    var valuePath: [any CodingKey] { codingPath + [nextKey] }

    func put(_ value: JSONValue) {
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
            KeyedEncodingNodeContainer<NestedKey>(encoder: encoder, node: child, codingPath: codingPath + [key]))
    }

    package mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = nextKey
        let child = EncodingNode()
        child.becomeArray()
        node.append(.node(child))
        return UnkeyedEncodingNodeContainer(encoder: encoder, node: child, codingPath: codingPath + [key])
    }

    package mutating func superEncoder() -> any Encoder {
        let key = nextKey
        let child = EncodingNode()
        node.append(.node(child))
        return ValueEncoder(node: child, codingPath: codingPath + [key], userInfo: encoder.sendableUserInfo)
    }
}

struct SingleEncodingNodeContainer: SingleValueEncodingContainer, EncodingNodeContainer {
    package let encoder: ValueEncoder

    package var codingPath: [any CodingKey] { encoder.codingPath }
    var valuePath: [any CodingKey] { codingPath }

    func put(_ value: JSONValue) {
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
