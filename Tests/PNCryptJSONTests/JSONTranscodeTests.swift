import Testing
import PNCryptJSON
import PNCryptBase
import PNCryptTestSupport

/// JSON text rewritten without a value (`JSONWriter.withTranscoded`, `JSONParser.transcode`), and its check
/// without writing (`JSONParser.checkOneText`, which `isJSONText` runs): each must give exactly what parsing and
/// then writing give, for every input.
@Suite("JSON text without a value")
struct JSONTranscodeTests {
    /// What parsing and writing give: the text in `style`, or nil when `bytes` does not parse.
    static func expected(_ bytes: [UInt8], _ style: JSONStyle) -> [UInt8]? {
        (try? JSONValue(parsing: bytes))?.serialized(style: style)
    }

    static func transcoded(_ bytes: [UInt8], _ style: JSONStyle) -> [UInt8]? {
        var text: [UInt8]?
        let written = bytes.withUnsafeBytes { input in
            JSONWriter.withTranscoded(input, readable: input.count, style: style) { text = Array($0) }
        }
        #expect(written == (text != nil))
        return text
    }

    /// A check only (`JSONParser.checkOneText`, what `isJSONText` runs) throws where parsing throws, at the same
    /// offset, but makes no message: "invalid JSON" and nothing more (auto mode's losing reading fails it on almost
    /// every message, and nobody reads that error). Writing (`transcode`), the error is parsing's, word for word.
    @Test("a check fails where parsing fails, at the same offset, without words")
    func checkErrorsHaveNoWords() throws {
        for text in ["{\"a\":1,}", "[1 2]", "essage 0 \u{FC}n}", "\"\u{01}\"", "{\"a\":tru}", "[\"\\x\"]", "[1]]"] {
            let bytes = Array(text.utf8)
            var parsing: PNCryptError?
            do { _ = try JSONValue(parsing: bytes) } catch { parsing = error }
            let expected = try #require(parsing, "\(text)")
            for writing in [false, true] {
                var scratch = [UInt8](repeating: 0, count: 64)
                let thrown = scratch.withUnsafeMutableBytes { buffer -> PNCryptError? in
                    bytes.withUnsafeBufferPointer { input -> PNCryptError? in
                        var writer = JSONWriter(style: .compact, output: ByteBuffer(startingIn: buffer, secret: false))
                        do throws(PNCryptError) {
                            if writing {
                                try JSONParser.transcode(input, maxDepth: 64, readable: input.count, into: &writer)
                            } else {
                                try JSONParser.checkOneText(input, maxDepth: 64, readable: input.count)
                            }
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                let error = try #require(thrown, "\(text), writing \(writing)")
                #expect(error.code == .invalidJSON && error.offset == expected.offset, "\(text)")
                #expect(error.message == (writing ? expected.message : "invalid JSON"), "\(text): \(error.message)")
            }
        }
    }

    /// Checks one input in every exact style, and `isJSONText`; returns whether it parsed.
    @discardableResult
    static func check(_ bytes: [UInt8], _ label: @autoclosure () -> String) -> Bool {
        let parses = (try? JSONValue(parsing: bytes)) != nil
        #expect(bytes.withUnsafeBytes { isJSONText($0) } == parses, "isJSONText: \(label())")
        for style in JSONStyle.allCases where style.isExact {
            let text = transcoded(bytes, style)
            if text != expected(bytes, style) {
                Issue.record("\(style): \(label()): \(text.map { String(decoding: $0, as: UTF8.self) } ?? "nil")")
            }
        }
        return parses
    }

    /// Texts that reach every branch: white space everywhere, every escape, surrogates paired and lone, numbers
    /// of every form, strings across the 8-byte scan and the 15-byte small-string boundaries, what each style
    /// escapes, and the grammar's errors.
    static let corpus: [String] = [
        "{}", "[]", " { } ", "[ ]", "\t[\n1 ,\r2 ]\n", "{\"a\" : 1 , \"b\":[ ] ,\"c\":{ }}", "null", "true", "false",
        "0", "-0", "-0.0", "1.5", "1e5", "1E+5", "-1.0e-7", "123456789012345678", "1234567890123456789",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "123456789012345678901234567890", "0.000", "1e400", "\"\"", "\"a\"", "\"1234567\"", "\"12345678\"",
        "\"123456789\"", "\"123456789012345\"", "\"1234567890123456\"", "\"12345678901234567\"",
        "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\u0041\\u00e9\\u6f22\"", "\"\\ud83d\\ude00\"", "\"\\ud83d\"",
        "\"\\ude00\"", "\"\\ud83dx\"", "\"\\ud83d\\u0041\"", "\"\\ud83d\\ud83d\\ude00\"", "\"\\u0000\\u001f\\u007f\"",
        "\"a/b\"", "\"del\u{7F}\"", "\"é漢😀\"", "\"\u{2028}\u{2029}\"", "\"<>&='\"", "[\"x\",\"y\",\"\"]",
        "{\"dup\":1,\"dup\":2}", "{\"\":\"\"}", "{\"k\\n\":\"v\\t\"}", "{\"é\":[1,{\"漢\":null}]}",
        "[[[[[[[[]]]]]]]]", "[1,[2,[3,{\"a\":[4,{\"b\":5}]}]]]",
        // Errors.
        "", " ", "[", "]", "{", "}", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{1:2}", "{\"a\":1,}",
        "[1 2]", "{\"a\":1 \"b\":2}", "tru", "nul", "fals", "truex", "nulll", "-", "1.", ".5", "1e", "1e+", "01",
        "-01", "+1", "0x10", "NaN", "Infinity", "\"unterminated", "\"bad \\x escape\"", "\"\\u12\"", "\"\\u12G4\"",
        "\"raw\ncontrol\"", "\"raw\u{1}control\"", "[1] [2]", "{} x", "\"a\" \"b\"", "[\"a\",", "{\"a\":1",
        "\u{FEFF}{}", "[1]\u{0}",
    ]

    @Test("Every text of the corpus, in every exact style: the text parsing and writing give, or none")
    func corpusTexts() {
        var parsed = 0
        for text in Self.corpus where Self.check(Array(text.utf8), text) { parsed += 1 }
        // Both halves of the corpus are reached: a check that declined everything would fail here.
        #expect(parsed == 54 && Self.corpus.count - parsed == 44, "parsed \(parsed) of \(Self.corpus.count)")
    }

    @Test("Invalid UTF-8 in strings, plain and escaped: declined, as parsing fails")
    func invalidUTF8() {
        for (bytes, _) in JSONParserTests.invalidUTF8 {
            #expect(!Self.check(bytes, "\(bytes)"))
            #expect(!Self.check(Array("{\"k\":".utf8) + bytes + Array("}".utf8), "member \(bytes)"))
        }
    }

    @Test("Nesting: up to the parser's limit of 512 levels accepted, one more declined")
    func depth() {
        for depth in [511, 512, 513] {
            let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            #expect(Self.check(Array(arrays.utf8), "arrays \(depth)") == (depth <= 512))
            let objects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
            #expect(Self.check(Array(objects.utf8), "objects \(depth)") == (depth <= 512))
        }
    }

    /// A random value: every case, strings drawn from pieces that need each style's escapes.
    static func value(_ random: inout SeededRandom, depth: Int) -> JSONValue {
        let pieces = ["a", "key", "0123456789", "\"", "\\", "/", "\u{7F}", "\u{1}", "\n", "é", "漢", "😀",
                      "\u{2028}", " ", "long enough to pass the small-string size"]
        func string(_ random: inout SeededRandom) -> String {
            (0..<random.below(5)).map { _ in random.pick(pieces) }.joined()
        }
        switch random.below(depth > 3 ? 4 : 7) {
        case 0: return .null
        case 1: return .bool(random.below(2) == 0)
        case 2:
            let numbers = ["0", "-0", "17", "-3.25", "1e9", "6.02E23", "13406746729185766", "98765432109876543210"]
            return .number(JSONNumber(literal: random.pick(numbers))!)
        case 3: return .string(string(&random))
        case 4, 5:
            return .array((0..<random.below(5)).map { _ in value(&random, depth: depth + 1) })
        default:
            return .object(JSONObject((0..<random.below(5)).map { _ in
                (string(&random), value(&random, depth: depth + 1))
            }))
        }
    }

    @Test("Random values written in every style and cut or changed at random: the same as parsing and writing")
    func randomTexts() {
        var random = SeededRandom(seed: 34, label: "transcode")
        var parsed = 0, declined = 0
        for round in 0..<400 {
            let text = Self.value(&random, depth: 0).serialized(style: random.pick(JSONStyle.allCases))
            if Self.check(text, "round \(round)") { parsed += 1 }
            // One byte cut, changed or inserted: often no longer JSON, sometimes still.
            var changed = text
            let at = random.below(changed.count + 1)
            switch random.below(3) {
            case 0 where at < changed.count: changed.remove(at: at)
            case 1 where at < changed.count:
                changed[at] = random.pick(Array("{}[],:\"\\ 0-.etu\u{1}".utf8) + [0xC3, 0xFF])
            default: changed.insert(random.pick(Array("{}[],:\"\\ 1".utf8)), at: at)
            }
            if !Self.check(changed, "round \(round) changed at \(at)") { declined += 1 }
        }
        // PHP writes a string message raw between quotes (often not JSON): those few do not parse.
        #expect(parsed > 360 && declined > 100, "parsed \(parsed), declined \(declined)")
    }
}
