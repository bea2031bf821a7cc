extension JSONValue: Codable {
    /// Writes this value through any encoder. `JSONValueEncoder` inserts it unchanged; other encoders get
    /// numbers as `Int64`, else `UInt64`, else `Double` (which rounds: decimals lose their exact text), and
    /// objects through a keyed container (so in that encoder's key order).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if let int = number.int64Value, number.isIntegerLiteral {
                try container.encode(int)
            } else if let uint = number.uint64Value, number.isIntegerLiteral {
                try container.encode(uint)
            } else if let double = number.doubleValue {
                try container.encode(double)
            } else {
                throw EncodingError.invalidValue(
                    number, EncodingError.Context(
                        codingPath: encoder.codingPath, debugDescription: "Number \(number) does not fit in Double"))
            }
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in object { try container.encode(value, forKey: AnyCodingKey(stringValue: key)) }
        }
    }

    /// Reads any value from any decoder. `JSONValueDecoder` hands the value over unchanged; other decoders are
    /// asked for null, Boolean, `Int64`, `UInt64`, `Double`, string, object, then array, in that order.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .null
                return
            }
            if let flag = try? single.decode(Bool.self) {
                self = .bool(flag)
                return
            }
            if let int = try? single.decode(Int64.self) {
                self = .number(JSONNumber(int))
                return
            }
            if let uint = try? single.decode(UInt64.self) {
                self = .number(JSONNumber(uint))
                return
            }
            if let double = try? single.decode(Double.self), let number = JSONNumber(double) {
                self = .number(number)
                return
            }
            if let string = try? single.decode(String.self) {
                self = .string(string)
                return
            }
        }
        if let keyed = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var object = JSONObject()
            for key in keyed.allKeys {
                object.append(try keyed.decode(JSONValue.self, forKey: key), forKey: key.stringValue)
            }
            self = .object(object)
            return
        }
        var unkeyed = try decoder.unkeyedContainer()
        var elements: [JSONValue] = []
        while !unkeyed.isAtEnd {
            elements.append(try unkeyed.decode(JSONValue.self))
        }
        self = .array(elements)
    }
}
