/// Turns a `JSONValue` into any `Decodable` type, so a client can read messages as its own types.
///
/// - Integers decode only when the number is exactly an integer that fits the type (`1e2` is 100 for `Int`;
///   `1.5` or `300` for `UInt8` throw `DecodingError.dataCorrupted`). `Int64` and `UInt64` are exact.
/// - `Double` and `Float` take the nearest value of any number.
/// - Keyed lookups return the last member with the key, like `JSON.parse`; `allKeys` lists each key once in
///   document order.
/// - A `JSONValue` field receives the value as it is.
///
/// Errors are `DecodingError`s with the coding path of the problem.
package struct JSONValueDecoder: Sendable {
    /// Context for custom `init(from:)` implementations, passed as `Decoder.userInfo`.
    package var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates a decoder.
    package init() {}

    /// Decodes a value of type `type` from `value`; throws `DecodingError` when the shapes or types differ.
    package func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder(value: value, codingPath: [], userInfo: userInfo).unbox(type)
    }
}

// MARK: - Implementation

final class ValueDecoder: CodingState, Decoder {
    package let value: JSONValue

    package init(value: JSONValue, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.value = value
        super.init(codingPath: codingPath, userInfo: userInfo)
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw ValueDecoder.mismatch(JSONObject.self, value, codingPath)
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw ValueDecoder.mismatch([JSONValue].self, value, codingPath)
        }
        return UnkeyedContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(decoder: self)
    }

    /// Decodes `type` from this decoder's value.
    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        return try T(from: self)
    }

    /// Decodes `type` from a nested value at `path`.
    func unbox<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: [any CodingKey]) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        return try ValueDecoder(value: value, codingPath: path, userInfo: sendableUserInfo).unbox(type)
    }

    package static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        let found: String
        switch value {
        case .null: found = "null"
        case .bool: found = "a Boolean"
        case .number(let number): found = "the number \(number)"
        case .string: found = "a string"
        case .array: found = "an array"
        case .object: found = "an object"
        }
        return DecodingError.typeMismatch(
            type, DecodingError.Context(codingPath: path, debugDescription: "Expected \(type) but found \(found)"))
    }

    package static func bool(_ value: JSONValue, _ path: [any CodingKey]) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, value, path) }
        return flag
    }

    package static func string(_ value: JSONValue, _ path: [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, path) }
        return string
    }

    package static func double(_ value: JSONValue, _ path: [any CodingKey]) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(Double.self, value, path) }
        guard let double = number.doubleValue else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: path, debugDescription: "Number \(number) does not fit in Double"))
        }
        return double
    }

    package static func float(_ value: JSONValue, _ path: [any CodingKey]) throws -> Float {
        let double = try self.double(value, path)
        let float = Float(double)
        guard float.isFinite else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: path, debugDescription: "Number \(value) does not fit in Float"))
        }
        return float
    }

    package static func integer<I: FixedWidthInteger>(
        _ type: I.Type, _ value: JSONValue, _ path: [any CodingKey]
    ) throws -> I {
        guard case .number(let number) = value else { throw mismatch(type, value, path) }
        if let int = number.int64Value, let result = I(exactly: int) { return result }
        if let uint = number.uint64Value, let result = I(exactly: uint) { return result }
        throw DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: path, debugDescription: "Number \(number) does not fit in \(type)"))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    package let decoder: ValueDecoder
    package let object: JSONObject
    /// Key to last position, built only for objects large enough that linear lookups would add up.
    package let index: [String: Int]?

    package init(decoder: ValueDecoder, object: JSONObject) {
        self.decoder = decoder
        self.object = object
        if object.count > 16 {
            var index: [String: Int] = [:]
            for (position, key) in object.keys.enumerated() { index[key] = position }
            self.index = index
        } else {
            index = nil
        }
    }

    package var codingPath: [any CodingKey] { decoder.codingPath }

    package var allKeys: [Key] {
        var seen = Set<String>()
        return object.keys.compactMap { key in
            guard seen.insert(key).inserted else { return nil }
            return Key(stringValue: key)
        }
    }

    package func contains(_ key: Key) -> Bool {
        lookup(key.stringValue) != nil
    }

    private func lookup(_ key: String) -> JSONValue? {
        if let index {
            guard let position = index[key] else { return nil }
            return object.value(at: position)
        }
        return object[key]
    }

    private func value(_ key: Key) throws -> JSONValue {
        guard let value = lookup(key.stringValue) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(codingPath: codingPath, debugDescription: "No member \"\(key.stringValue)\""))
        }
        return value
    }

    package func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }
    package func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try ValueDecoder.bool(try value(key), codingPath + [key])
    }
    package func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try ValueDecoder.string(try value(key), codingPath + [key])
    }
    package func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try ValueDecoder.double(try value(key), codingPath + [key])
    }
    package func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try ValueDecoder.float(try value(key), codingPath + [key])
    }
    package func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    package func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    package func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    package func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    package func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    package func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    package func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    package func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    package func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    package func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    private func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
        try ValueDecoder.integer(type, try value(key), codingPath + [key])
    }

    package func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(type, from: try value(key), at: codingPath + [key])
    }

    package func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = ValueDecoder(value: try value(key), codingPath: codingPath + [key],
                                  userInfo: decoder.sendableUserInfo)
        return try nested.container(keyedBy: type)
    }

    package func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let nested = ValueDecoder(value: try value(key), codingPath: codingPath + [key],
                                  userInfo: decoder.sendableUserInfo)
        return try nested.unkeyedContainer()
    }

    package func superDecoder() throws -> any Decoder {
        let key = AnyCodingKey.superKey
        return ValueDecoder(value: lookup(key.stringValue) ?? .null, codingPath: codingPath + [key],
                            userInfo: decoder.sendableUserInfo)
    }

    package func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: lookup(key.stringValue) ?? .null, codingPath: codingPath + [key],
                     userInfo: decoder.sendableUserInfo)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    package let decoder: ValueDecoder
    package let elements: [JSONValue]
    private(set) var currentIndex = 0

    package init(decoder: ValueDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    package var codingPath: [any CodingKey] { decoder.codingPath }
    package var count: Int? { elements.count }
    package var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentPath: [any CodingKey] { codingPath + [AnyCodingKey(intValue: currentIndex)] }

    /// The next element; `currentIndex` moves on only when `read` succeeds.
    private mutating func next<T>(_ type: T.Type, _ read: (JSONValue, [any CodingKey]) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: currentPath, debugDescription: "Unkeyed container is at end"))
        }
        let result = try read(elements[currentIndex], currentPath)
        currentIndex += 1
        return result
    }

    package mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                JSONValue.self,
                DecodingError.Context(codingPath: currentPath, debugDescription: "Unkeyed container is at end"))
        }
        if elements[currentIndex].isNull {
            currentIndex += 1
            return true
        }
        return false
    }

    package mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type, ValueDecoder.bool) }
    package mutating func decode(_ type: String.Type) throws -> String { try next(type, ValueDecoder.string) }
    package mutating func decode(_ type: Double.Type) throws -> Double { try next(type, ValueDecoder.double) }
    package mutating func decode(_ type: Float.Type) throws -> Float { try next(type, ValueDecoder.float) }
    package mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    package mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    package mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    package mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    package mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    package mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    package mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    package mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    package mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    package mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private mutating func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        try next(type) { value, path in try ValueDecoder.integer(type, value, path) }
    }

    package mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = self.decoder
        return try next(type) { value, path in try decoder.unbox(type, from: value, at: path) }
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let decoder = self.decoder
        return try next(KeyedDecodingContainer<NestedKey>.self) { value, path in
            try ValueDecoder(value: value, codingPath: path, userInfo: decoder.sendableUserInfo)
                .container(keyedBy: type)
        }
    }

    package mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let decoder = self.decoder
        return try next((any UnkeyedDecodingContainer).self) { value, path in
            try ValueDecoder(value: value, codingPath: path, userInfo: decoder.sendableUserInfo).unkeyedContainer()
        }
    }

    package mutating func superDecoder() throws -> any Decoder {
        let decoder = self.decoder
        return try next((any Decoder).self) { value, path in
            ValueDecoder(value: value, codingPath: path, userInfo: decoder.sendableUserInfo)
        }
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    package let decoder: ValueDecoder

    package var codingPath: [any CodingKey] { decoder.codingPath }
    private var value: JSONValue { decoder.value }

    package func decodeNil() -> Bool { value.isNull }
    package func decode(_ type: Bool.Type) throws -> Bool { try ValueDecoder.bool(value, codingPath) }
    package func decode(_ type: String.Type) throws -> String { try ValueDecoder.string(value, codingPath) }
    package func decode(_ type: Double.Type) throws -> Double { try ValueDecoder.double(value, codingPath) }
    package func decode(_ type: Float.Type) throws -> Float { try ValueDecoder.float(value, codingPath) }
    package func decode(_ type: Int.Type) throws -> Int { try ValueDecoder.integer(type, value, codingPath) }
    package func decode(_ type: Int8.Type) throws -> Int8 { try ValueDecoder.integer(type, value, codingPath) }
    package func decode(_ type: Int16.Type) throws -> Int16 { try ValueDecoder.integer(type, value, codingPath) }
    package func decode(_ type: Int32.Type) throws -> Int32 { try ValueDecoder.integer(type, value, codingPath) }
    package func decode(_ type: Int64.Type) throws -> Int64 { try ValueDecoder.integer(type, value, codingPath) }
    package func decode(_ type: UInt.Type) throws -> UInt { try ValueDecoder.integer(type, value, codingPath) }
    package func decode(_ type: UInt8.Type) throws -> UInt8 { try ValueDecoder.integer(type, value, codingPath) }
    package func decode(_ type: UInt16.Type) throws -> UInt16 { try ValueDecoder.integer(type, value, codingPath) }
    package func decode(_ type: UInt32.Type) throws -> UInt32 { try ValueDecoder.integer(type, value, codingPath) }
    package func decode(_ type: UInt64.Type) throws -> UInt64 { try ValueDecoder.integer(type, value, codingPath) }

    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.unbox(type)
    }
}

extension JSONValue {
    /// Decodes a `Decodable` value from this JSON tree.
    /// - Parameter type: the type to decode.
    /// - Throws: a `DecodingError` when the tree does not have the type's shape.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONValueDecoder().decode(type, from: self)
    }
}
