import Foundation
import Testing
import PNCryptJSON

private struct Chat: Codable, Equatable {
    struct Sender: Codable, Equatable {
        var id: String
        var tags: [String]
    }

    var text: String
    var timetoken: UInt64
    var offset: Int64
    var ratio: Double
    var urgent: Bool
    var sender: Sender
    var reply: String?
    var scores: [String: Int]
    var matrix: [[Int8]]
    var extra: JSONValue
}

private enum Kind: String, Codable {
    case text, image
}

/// Exercises nested containers and super encoders by hand.
private class Base: Codable {
    var id: Int

    init(id: Int) { self.id = id }

    enum CodingKeys: String, CodingKey { case id }
}

private final class Derived: Base {
    var name: String

    init(id: Int, name: String) {
        self.name = name
        super.init(id: id)
    }

    enum Keys: String, CodingKey { case name, nested, list }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(name, forKey: .name)
        var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
        try nested.encodeNil(forKey: .name)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try list.encode(1)
        var inner = list.nestedContainer(keyedBy: Keys.self)
        try inner.encode(true, forKey: .name)
        try super.encode(to: container.superEncoder())
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        name = try container.decode(String.self, forKey: .name)
        let nested = try container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
        #expect(try nested.decodeNil(forKey: .name))
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        #expect(try list.decode(Int.self) == 1)
        let inner = try list.nestedContainer(keyedBy: Keys.self)
        #expect(try inner.decode(Bool.self, forKey: .name))
        #expect(list.isAtEnd)
        try super.init(from: container.superDecoder())
    }
}

@Suite("JSONCodable")
struct JSONCodableTests {
    private let chat = Chat(
        text: "héllo 😀", timetoken: 13_406_746_729_185_766, offset: Int64.min, ratio: 0.1, urgent: true,
        sender: .init(id: "u1", tags: ["a", "b"]), reply: nil, scores: ["x": 1], matrix: [[1, -2], []],
        extra: ["any": [1, nil]])

    @Test("JSON encoder writes keys in declaration order and numbers exactly")
    func encodesInOrder() throws {
        let value = try JSONValueEncoder().encode(chat)
        #expect(value.serializedString() == "{\"text\":\"héllo 😀\",\"timetoken\":13406746729185766,"
                + "\"offset\":-9223372036854775808,\"ratio\":0.1,\"urgent\":true,"
                + "\"sender\":{\"id\":\"u1\",\"tags\":[\"a\",\"b\"]},\"scores\":{\"x\":1},\"matrix\":[[1,-2],[]],"
                + "\"extra\":{\"any\":[1,null]}}")
    }

    @Test("JSON encoder and decoder round-trip a client type")
    func roundTrip() throws {
        var withReply = chat
        withReply.reply = "ok"
        for original in [chat, withReply] {
            let value = try JSONValueEncoder().encode(original)
            let text = value.serialized(style: .python)
            let decoded = try JSONValueDecoder().decode(Chat.self, from: JSONValue(parsing: text))
            #expect(decoded == original)
        }
    }

    @Test("JSON encoder handles top-level scalars, optionals, arrays, dictionaries and enums")
    func topLevelValues() throws {
        let encoder = JSONValueEncoder()
        #expect(try encoder.encode("s") == "s")
        #expect(try encoder.encode(UInt64.max) == .number(JSONNumber(UInt64.max)))
        #expect(try encoder.encode(Int8(-3)) == -3)
        #expect(try encoder.encode(Float(0.1)) == .number(JSONNumber(literal: "0.1")!))
        #expect(try encoder.encode(Optional<Int>.none) == nil)
        #expect(try encoder.encode([1, 2]) == [1, 2])
        #expect(try encoder.encode(["k": [true]]) == ["k": [true]])
        #expect(try encoder.encode(Kind.image) == "image")
        // A key type that is neither String, Int nor CodingKeyRepresentable: Swift writes [key, value, ...].
        #expect(try encoder.encode([Kind.text: 1]) == ["text", 1])
        let json: JSONValue = ["raw": [1.50, "x"]]
        #expect(try encoder.encode(json) == json)
    }

    @Test("JSON encoder refuses NaN and infinity with EncodingError")
    func refusesNonFinite() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Double.nan) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["x": Double.infinity]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Float.infinity]) }
    }

    @Test("JSON encoder and decoder support nested and super containers")
    func nestedContainers() throws {
        let value = try JSONValueEncoder().encode(Derived(id: 7, name: "n"))
        #expect(value.serializedString() == #"{"name":"n","nested":{"name":null},"list":[1,{"name":true}],"#
                + #""super":{"id":7}}"#)
        let decoded = try JSONValueDecoder().decode(Derived.self, from: value)
        #expect(decoded.id == 7 && decoded.name == "n")
    }

    @Test("JSON decoder reads exact integers and refuses lossy ones")
    func decodesIntegers() throws {
        let decoder = JSONValueDecoder()
        let timetoken = try JSONValue(parsing: "13406746729185767")
        #expect(try decoder.decode(Int64.self, from: timetoken) == 13_406_746_729_185_767)
        #expect(try decoder.decode(UInt64.self, from: JSONValue(parsing: "18446744073709551615")) == UInt64.max)
        #expect(try decoder.decode(Int.self, from: JSONValue(parsing: "1e2")) == 100)
        #expect(try decoder.decode([UInt8].self, from: [0, 255]) == [0, 255])
        #expect(throws: DecodingError.self) { try decoder.decode(UInt8.self, from: 256) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: 1.5) }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt.self, from: -1) }
        #expect(throws: DecodingError.self) {
            try decoder.decode(Int64.self, from: JSONValue(parsing: "9223372036854775808"))
        }
        #expect(try decoder.decode(Double.self, from: 1) == 1.0)
        #expect(try decoder.decode(Float.self, from: 0.5) == 0.5)
        #expect(throws: DecodingError.self) { try decoder.decode(Float.self, from: JSONValue(parsing: "1e300")) }
    }

    @Test("JSON decoder reports type mismatches and missing keys with their coding path")
    func decodingErrors() throws {
        let decoder = JSONValueDecoder()
        do {
            _ = try decoder.decode(Chat.Sender.self, from: ["id": "x", "tags": ["a", 2]])
            Issue.record("decoded a number as a String")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["tags", "1"])
        }
        do {
            _ = try decoder.decode(Chat.Sender.self, from: ["tags": []])
            Issue.record("decoded without a required key")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "id")
        }
        #expect(throws: DecodingError.self) { try decoder.decode([Int].self, from: ["k": 1]) }
        #expect(throws: DecodingError.self) { try decoder.decode([String: Int].self, from: [1]) }
        #expect(throws: DecodingError.self) { try decoder.decode(Bool.self, from: "true") }
        #expect(throws: DecodingError.self) { try decoder.decode(String.self, from: nil) }
        #expect(throws: DecodingError.self) { try decoder.decode(Kind.self, from: "video") }
    }

    @Test("JSON decoder: optionals, last duplicate key wins, allKeys once each, large objects")
    func decoderDetails() throws {
        struct Opt: Codable, Equatable { var a: Int?; var b: String? }
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(Opt.self, from: ["a": nil]) == Opt(a: nil, b: nil))
        #expect(try decoder.decode(Opt.self, from: JSONValue(parsing: #"{"a":1,"a":2}"#)) == Opt(a: 2, b: nil))
        #expect(try decoder.decode([Int?].self, from: [1, nil, 3]) == [1, nil, 3])
        let dict = try decoder.decode([String: Int].self, from: JSONValue(parsing: #"{"x":1,"y":2,"x":3}"#))
        #expect(dict == ["x": 3, "y": 2])
        var big = JSONObject()
        for index in 0..<1000 { big.append(.number(JSONNumber(index)), forKey: "k\(index)") }
        big.append(-1, forKey: "k5")
        let decodedBig = try decoder.decode([String: Int].self, from: .object(big))
        #expect(decodedBig.count == 1000)
        #expect(decodedBig["k5"] == -1 && decodedBig["k999"] == 999)
        #expect(try decoder.decode(JSONValue.self, from: ["x": [1]]) == ["x": [1]])
    }

    @Test("JSON values pass through Foundation's JSONEncoder and JSONDecoder")
    func foundationInterop() throws {
        let value: JSONValue = ["a": [1, -2, 0.5, "s", nil, true], "big": 13406746729185766]
        let data = try JSONEncoder().encode(value)
        let back = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(back["a"] == value["a"])
        #expect(back["big"] == value["big"])
        let parsed = try JSONValue(parsing: [UInt8](data))
        #expect(parsed["a"] == value["a"])
    }
}
