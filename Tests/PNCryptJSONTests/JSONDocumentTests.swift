import Foundation
import Testing
import PNCryptBase
import PNCryptJSON
import PNCryptTestSupport

/// A parsed object is a view of its document (`JSONDocument`): every reading of it, and every change, must give
/// what the object made at once by the parser gives (`JSONParser.parse(documents: false)`, the reference here).
@Suite("Parsed objects as views of their document")
struct JSONDocumentTests {
    static func parse(_ bytes: [UInt8], documents: Bool) -> Result<JSONValue, PNCryptError> {
        bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(PNCryptError) in
                try JSONParser.parse(buffer, maxDepth: JSONValue.defaultMaxDepth, readable: buffer.count,
                                     documents: documents)
            }
        }
    }

    /// Checks one text: the same error, or values that read, compare, hash, write and change alike. Returns
    /// whether it parsed.
    /// `deep`: only every style's bytes (comparing values recurses, and a sanitizer's frames on a test thread's
    /// stack do not take hundreds of levels of it; shallower texts compare fully).
    @discardableResult
    static func check(_ bytes: [UInt8], _ label: @autoclosure () -> String, deep: Bool = false) -> Bool {
        switch (parse(bytes, documents: true), parse(bytes, documents: false)) {
        case (.failure(let viewError), .failure(let madeError)):
            #expect(viewError.code == madeError.code && viewError.offset == madeError.offset
                    && "\(viewError)" == "\(madeError)", "\(label()): \(viewError) / \(madeError)")
            return false
        case (.success(let view), .success(let made)):
            #expect(outerObjectsAreViews(view), "\(label()): a parsed object is a view")
            if deep {
                for style in JSONStyle.allCases {
                    #expect(view.serialized(style: style) == made.serialized(style: style), "\(label()): \(style)")
                }
            } else {
                compare(view, made, label())
            }
            return true
        case (let view, let made):
            Issue.record("\(label()): \(view) / \(made)")
            return false
        }
    }

    /// Whether the objects of `value` outside every other object (itself, or in its arrays) are views, when the
    /// text went to a document (its first value past the arrays' openings is an object).
    static func outerObjectsAreViews(_ value: JSONValue) -> Bool {
        func firstNonArray(_ value: JSONValue) -> JSONValue? {
            guard case .array(let elements) = value else { return value }
            return elements.first.flatMap(firstNonArray)
        }
        guard case .object = firstNonArray(value) else { return true }
        func check(_ value: JSONValue) -> Bool {
            switch value {
            case .object(let object): object.view != nil
            case .array(let elements): elements.allSatisfy(check)
            default: true
            }
        }
        return check(value)
    }

    /// `view` and `made` agree in every reading, recursively, and after the same changes.
    static func compare(_ view: JSONValue, _ made: JSONValue, _ label: @autoclosure () -> String) {
        #expect(view == made && made == view, "\(label()): equality")
        #expect(view.hashValue == made.hashValue, "\(label()): hash")
        for style in JSONStyle.allCases {
            #expect(view.serialized(style: style) == made.serialized(style: style), "\(label()): \(style)")
        }
        switch (view, made) {
        case (.array(let viewElements), .array(let madeElements)):
            #expect(viewElements.count == madeElements.count, "\(label()): count")
            for (index, (element, expected)) in zip(viewElements, madeElements).enumerated() {
                compare(element, expected, "\(label())[\(index)]")
            }
        case (.object(let viewObject), .object(let madeObject)):
            compareObjects(viewObject, madeObject, label())
        default:
            break
        }
    }

    static func compareObjects(_ view: JSONObject, _ made: JSONObject, _ label: @autoclosure () -> String) {
        #expect(view.count == made.count && view.keys == made.keys && view.values == made.values, "\(label())")
        #expect(view.isEmpty == made.isEmpty && Array(view.indices) == Array(made.indices), "\(label())")
        for (position, (key, value)) in view.enumerated() {
            #expect(key == made[position].key, "\(label()): key \(position)")
            compare(value, made[position].value, "\(label()).\(key)")
            #expect(view[key] == made[key] && view.contains(key: key), "\(label()): lookup \(key)")
        }
        for absent in ["", "absent", "é", "\u{212A}"] where !made.contains(key: absent) {
            #expect(view[absent] == nil && !view.contains(key: absent), "\(label()): \(absent)")
        }
        // The same changes, each on a fresh copy: a view's members become its own, the original view unchanged.
        let before = view
        for key in made.keys.prefix(2) + ["new"] {
            var changedView = view, changedMade = made
            changedView[key] = ["changed": true]
            changedMade[key] = ["changed": true]
            #expect(changedView == changedMade && changedView.view == nil, "\(label()): set \(key)")
            changedView.append(1, forKey: key)
            changedMade.append(1, forKey: key)
            #expect(changedView == changedMade, "\(label()): append \(key)")
            var removedView = view, removedMade = made
            #expect(removedView.removeValue(forKey: key) == removedMade.removeValue(forKey: key))
            #expect(removedView == removedMade, "\(label()): remove \(key)")
        }
        #expect(view == before && (view.view != nil) == (before.view != nil), "\(label()): unchanged")
    }

    /// The corpus of the transcoder's tests, each text as it is, as a member's value and an element of one, and in
    /// arrays of objects (each object its own document, the arrays and their other elements made).
    static func texts() -> [String] {
        JSONTranscodeTests.corpus.flatMap { text in
            [text, "{\"v\":\(text)}", " {\"v\" : [\(text), \(text)] , \"w\":{\"x\":\(text)}}\n",
             "[\(text), {\"w\":\(text)}]", " [ [{\"v\":\(text)} ,{}], [\(text)], \(text), {\"x\":[\(text)]} ]\t"]
        }
    }

    @Test("The corpus: the same errors (code, offset, message), or objects that read, write and change alike")
    func corpusTexts() {
        var parsed = 0
        for text in Self.texts() where Self.check(Array(text.utf8), text) { parsed += 1 }
        #expect(parsed > 150, "parsed \(parsed)")
    }

    @Test("Invalid UTF-8 in keys and values, plain and escaped: the parser's error at the same offset")
    func invalidUTF8() {
        for (bytes, _) in JSONParserTests.invalidUTF8 {
            #expect(!Self.check(Array("{\"k\":".utf8) + bytes + Array("}".utf8), "value \(bytes)"))
            #expect(!Self.check(Array("{".utf8) + bytes + Array(":1}".utf8), "key \(bytes)"))
        }
    }

    @Test("Nesting: objects up to 512 levels, the 513th refused with the parser's error")
    func depth() {
        for depth in [1, 31, 32, 33, 511, 512, 513] {
            let objects = String(repeating: "{\"a\":", count: depth) + "[1]" + String(repeating: "}", count: depth)
            #expect(Self.check(Array(objects.utf8), "objects \(depth)", deep: depth > 40) == (depth < 512))
            let half = depth / 2
            let mixed = String(repeating: "{\"a\":[", count: half) + "{}" + String(repeating: "]}", count: half)
            #expect(Self.check(Array(mixed.utf8), "mixed \(depth)", deep: depth > 40) == (half * 2 + 1 <= 512))
            let arrays = String(repeating: "[", count: half) + objects + String(repeating: "]", count: half)
            #expect(Self.check(Array(arrays.utf8), "arrays \(depth)", deep: depth > 40) == (half + depth < 512))
        }
    }

    @Test("Random objects of every shape (past the parser's inline node space), written in every style")
    func randomObjects() {
        var random = SeededRandom(seed: 35, label: "documents")
        for round in 0..<300 {
            let members = (0..<random.below(round % 10 == 0 ? 60 : 6)).map { _ in
                (random.pick(["a", "key", "é", "\u{212A}", "K", "a\"b", "long enough to pass the small-string size"]),
                 JSONTranscodeTests.value(&random, depth: 0))
            }
            let style = random.pick(JSONStyle.allCases)
            let text = JSONValue.object(JSONObject(members)).serialized(style: style)
            #expect(Self.check(text, "round \(round)") || text.first != UInt8(ascii: "{"), "round \(round)")
            // In an array, beside a copy of itself with one member fewer: two documents.
            let array = JSONValue.array([.object(JSONObject(members)), .object(JSONObject(members.dropLast()))])
            let arrayText = array.serialized(style: style)
            #expect(Self.check(arrayText, "round \(round) in an array") || arrayText.first != UInt8(ascii: "["))
        }
    }

    @Test("Written in the compact style, a compact object is its own bytes; space or an escape is written anew")
    func verbatim() throws {
        let compact = #"{"a":[1,-0.50,1E+2,true,null],"b":"é 漢 \#u{7F}","c":{"d":{}}}"#
        for text in [compact, "[\(compact),\(compact)]", "[[\(compact)],2]"] {
            #expect(try JSONValue(parsing: text).serializedString() == text)
            #expect(Self.check(Array(text.utf8), text))
        }
        for (text, written) in [(#"{"a" :1}"#, #"{"a":1}"#), (#"{ "a":1}"#, #"{"a":1}"#),
                                (#"{"a":1 }"#, #"{"a":1}"#), (#"{"a":"x\/y"}"#, #"{"a":"x/y"}"#),
                                (#"[{"a":[1, 2]}]"#, #"[{"a":[1,2]}]"#), (#"[ {"a":"\u0041"}]"#, #"[{"a":"A"}]"#)] {
            #expect(try JSONValue(parsing: text).serializedString() == written, "\(text)")
            #expect(Self.check(Array(text.utf8), text))
        }
    }

    @Test("Keys by String equality: canonically equivalent keys match, escaped or not, as in a made object")
    func keyEquivalence() throws {
        let text = #"{"K":1,"\u212a":2,"caf\u00e9":3,"cafe\u0301":4,"é":5}"#
        #expect(Self.check(Array(text.utf8), text))
        let view = try JSONValue(parsing: text)
        let made = try Self.parse(Array(text.utf8), documents: false).get()
        for key in ["K", "\u{212A}", "café", "cafe\u{301}", "é", "e\u{301}", "k"] {
            #expect(view[key] == made[key], "\(key)")
        }
        #expect(view["K"] == 2 && view["café"] == 4 && view["é"] == 5)
    }

    @Test("A nested object outlives the value it came from, and is a view of the same document")
    func nestedOutlivesRoot() throws {
        var nested: JSONValue?
        do {
            let root = try JSONValue(parsing: #"{"outer":{"inner":{"text":"a string longer than fifteen bytes"}}}"#)
            nested = root["outer"]?["inner"]
            #expect(nested?.objectValue?.view != nil)
        }
        #expect(nested?["text"] == "a string longer than fifteen bytes")
        #expect(nested?.serializedString() == #"{"text":"a string longer than fifteen bytes"}"#)
    }

    @Test("One view read from many threads at once gives the same readings")
    func concurrentReads() async throws {
        let value = try JSONValue(parsing: #"{"a":[1,"two",{"three":3.0}],"b":"a string longer than 15 bytes"}"#)
        let expected = value.serializedString()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<200).allSatisfy { _ in
                        value.serializedString() == expected && value["a"]?[2]?["three"] == 3.0
                            && value["b"] == "a string longer than 15 bytes"
                    }
                }
            }
            for try await agreed in group { #expect(agreed) }
        }
    }

    @Test("Codable: a type decoded from a view equals the one decoded from the made object")
    func codable() throws {
        struct Message: Codable, Equatable {
            var text: String
            var tags: [String]
            var meta: [String: Int]
            var nested: [Message]?
        }
        let text = #"{"text":"hi","tags":["a","b"],"meta":{"x":1,"y":2},"nested":[{"text":"é","tags":[],"meta":{}}]}"#
        let view = try JSONValue(parsing: text)
        let made = try Self.parse(Array(text.utf8), documents: false).get()
        #expect(view.objectValue?.view != nil)
        #expect(try view.decode(Message.self) == made.decode(Message.self))
    }
}
