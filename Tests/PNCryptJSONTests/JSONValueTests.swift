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
}
