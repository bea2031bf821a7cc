import Testing
import PNCryptJSON

@Suite("JSONValue")
struct JSONValueTests {
    @Test("JSON literals build the matching cases")
    func literals() {
        let value: JSONValue = ["s": "x", "i": 7, "d": 0.5, "b": false, "n": nil, "a": [1, "two"], "o": ["k": []]]
        #expect(value["s"] == .string("x"))
        #expect(value["i"] == .number(JSONNumber(7)))
        #expect(value["d"] == .number(JSONNumber(literal: "0.5")!))
        #expect(value["b"] == .bool(false))
        #expect(value["n"] == .null)
        #expect(value["a"] == .array([.number(JSONNumber(1)), .string("two")]))
        #expect(value["o"] == .object(JSONObject([("k", .array([]))])))
        #expect(value.objectValue?.keys == ["s", "i", "d", "b", "n", "a", "o"])
    }

    @Test("JSON accessors return a value only for their own case")
    func accessors() {
        let values: [JSONValue] = [nil, true, 1, "s", [1], ["k": 1]]
        #expect(values.map(\.isNull) == [true, false, false, false, false, false])
        #expect(values.map { $0.boolValue != nil } == [false, true, false, false, false, false])
        #expect(values.map { $0.numberValue != nil } == [false, false, true, false, false, false])
        #expect(values.map { $0.stringValue != nil } == [false, false, false, true, false, false])
        #expect(values.map { $0.arrayValue != nil } == [false, false, false, false, true, false])
        #expect(values.map { $0.objectValue != nil } == [false, false, false, false, false, true])
        #expect(values[4][0] == 1)
        #expect(values[4][1] == nil)
        #expect(values[4][-1] == nil)
        #expect(values[5][0] == nil)
        #expect(values[3]["k"] == nil)
    }

    @Test("JSON values compare structurally, objects in member order, numbers by literal text")
    func equality() throws {
        #expect(try JSONValue(parsing: #"{"a":[1,{"b":null}]}"#) == ["a": [1, ["b": nil]]])
        #expect(try JSONValue(parsing: #"{"a":1,"b":2}"#) != JSONValue(parsing: #"{"b":2,"a":1}"#))
        #expect(try JSONValue(parsing: "1.0") != JSONValue(parsing: "1"))
        #expect(try JSONValue(parsing: "100") == JSONValue.number(JSONNumber(UInt64(100))))
        let set: Set<JSONValue> = [1, 1, "1", [1], ["1": 1]]
        #expect(set.count == 4)
    }

    @Test("JSON object keeps order and duplicates, looks up the last, sets in place")
    func objectSemantics() {
        var object: JSONObject = ["b": 1, "a": 2, "b": 3]
        #expect(object.count == 3)
        #expect(object["b"] == 3)
        #expect(object.lastIndex(ofKey: "b") == 2)
        #expect(object.contains(key: "a"))
        #expect(!object.contains(key: "z"))
        #expect(object.map(\.key) == ["b", "a", "b"])
        #expect(object[1].key == "a" && object[1].value == 2)

        object["a"] = "replaced"
        #expect(object.keys == ["b", "a", "b"])
        #expect(object.values == [1, "replaced", 3])
        object["c"] = nil
        #expect(object.count == 3)
        object["c"] = true
        #expect(object.keys == ["b", "a", "b", "c"])
        object.append(false, forKey: "c")
        #expect(object["c"] == false)
        #expect(object.removeValue(forKey: "b") == 3)
        #expect(object.keys == ["a", "c", "c"])
        object["c"] = nil
        #expect(object.keys == ["a"])
        #expect(object.removeValue(forKey: "zzz") == nil)
        #expect(JSONValue.object(object).serializedString() == #"{"a":"replaced"}"#)

        var pairs: [(String, JSONValue)] = []
        for (key, value) in JSONObject([("x", 1), ("y", 2)]) { pairs.append((key, value)) }
        #expect(pairs.map(\.0) == ["x", "y"])
        #expect(JSONObject().isEmpty)
    }

    @Test("JSON objects are values: a change to a copy, parsed or built, never shows in the original")
    func objectCopies() throws {
        // A parsed object's block is exactly full: the first append moves it; a copy's first change copies it.
        let parsed = try #require(JSONValue(parsing: #"{"a":1,"b":[2],"c":"a string of more than 15 bytes"}"#)
            .objectValue)
        var grown = parsed
        for index in 0..<40 { grown.append(JSONValue.number(JSONNumber(index)), forKey: "k\(index)") }
        #expect(parsed.count == 3 && grown.count == 43)
        #expect(Array(grown.keys.prefix(3)) == ["a", "b", "c"] && grown["k39"] == 39)
        var changed = parsed
        changed["b"] = "replaced"
        #expect(parsed["b"] == [2] && changed["b"] == "replaced")
        var removed = parsed
        #expect(removed.removeValue(forKey: "a") == 1)
        #expect(parsed.keys == ["a", "b", "c"] && removed.keys == ["b", "c"])
        // Equal and hashed alike however they were made (parsed, literal, appended, emptied).
        var built = JSONObject()
        built.append(1, forKey: "a")
        built.append([2], forKey: "b")
        built.append("a string of more than 15 bytes", forKey: "c")
        #expect(built == parsed && built.hashValue == parsed.hashValue)
        var emptied = parsed
        for key in ["a", "b", "c"] { emptied[key] = nil }
        #expect(emptied == JSONObject() && emptied.hashValue == JSONObject().hashValue && emptied.isEmpty)
        #expect(JSONValue.object(grown).serializedString().hasPrefix(#"{"a":1,"b":[2],"c":"a string"#))
        // A member read from one object and stored in another leaves both whole.
        var other: JSONObject = ["x": true]
        other["copied"] = parsed["c"]
        #expect(other.keys == ["x", "copied"] && parsed["c"] == "a string of more than 15 bytes")
    }
}
