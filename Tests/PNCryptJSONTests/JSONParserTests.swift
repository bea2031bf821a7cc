import Foundation
import Testing
import PNCryptJSON
import PNCryptTestSupport
import PNCryptBase

@Suite("JSONParser")
struct JSONParserTests {
    /// Parses `bytes` expecting an error; returns it, or records an issue if parsing succeeded.
    private func parseError(_ bytes: [UInt8], maxDepth: Int = JSONValue.defaultMaxDepth) -> PNCryptError? {
        do {
            let value = try JSONValue(parsing: bytes, maxDepth: maxDepth)
            Issue.record("expected an error, parsed \(value)")
            return nil
        } catch {
            return error
        }
    }

    private func parseError(_ text: String) -> PNCryptError? {
        parseError(Array(text.utf8))
    }

    // MARK: - Strictness, with exact offsets

    /// (input, offset, words the message must contain)
    static let rejected: [(String, Int, String)] = [
        ("", 0, "expected a JSON value, found end of input"),
        ("   ", 3, "expected a JSON value, found end of input"),
        ("[1,2,]", 5, "trailing comma before ']'"),
        ("[1,2, ]", 6, "trailing comma before ']'"),
        ("{\"a\":1,}", 7, "expected a string key after ','"),
        ("{,}", 1, "expected a string key or '}' after '{'"),
        ("{1:2}", 1, "expected a string key or '}' after '{'"),
        ("[1 2]", 3, "expected ',' or ']' after array element, found '2'"),
        ("{\"a\" 1}", 5, "expected ':' after object key, found '1'"),
        ("{\"a\":1 \"b\":2}", 7, "expected ',' or '}' after object member"),
        ("[1,2", 4, "expected ',' or ']' after array element, found end of input"),
        ("{\"a\":", 5, "expected a JSON value, found end of input"),
        ("// comment\n1", 0, "expected a JSON value, found '/'"),
        ("[1, /* c */ 2]", 4, "expected a JSON value, found '/'"),
        ("[1] // c", 4, "unexpected '/' after the JSON value"),
        ("NaN", 0, "expected a JSON value, found 'N'"),
        ("Infinity", 0, "expected a JSON value, found 'I'"),
        ("-Infinity", 1, "expected a digit after '-', found 'I'"),
        ("[NaN]", 1, "expected a JSON value, found 'N'"),
        ("01", 1, "leading zeros are not allowed"),
        ("-01", 2, "leading zeros are not allowed"),
        ("[00]", 2, "leading zeros are not allowed"),
        ("+1", 0, "expected a JSON value, found '+'"),
        ("[+1]", 1, "expected a JSON value, found '+'"),
        ("1.", 2, "expected a digit after '.', found end of input"),
        ("1.e5", 2, "expected a digit after '.', found 'e'"),
        (".5", 0, "expected a JSON value, found '.'"),
        ("1e", 2, "expected a digit in the exponent"),
        ("1e+", 3, "expected a digit in the exponent"),
        ("-", 1, "expected a digit after '-', found end of input"),
        ("0x10", 1, "unexpected 'x' after the JSON value"),
        ("\"a\u{01}b\"", 2, "unescaped control character U+0001 in string"),
        ("\"tab\there\"", 4, "unescaped control character U+0009 in string"),
        ("\"line\nbreak\"", 5, "unescaped control character U+000A in string"),
        ("[\"\\x\"]", 2, "invalid escape '\\x' in string"),
        ("\"\\'\"", 1, "invalid escape '\\'' in string"),
        ("\"\\u12G4\"", 5, "expected 4 hex digits after '\\u', found 'G'"),
        ("\"\\u12\"", 5, "expected 4 hex digits after '\\u', found '\"'"),
        ("\"abc", 4, "unterminated string starting at offset 0"),
        ("[\"abc\\", 6, "unterminated string starting at offset 1"),
        ("[] x", 3, "unexpected 'x' after the JSON value"),
        ("1 2", 2, "unexpected '2' after the JSON value"),
        ("{}}", 2, "unexpected '}' after the JSON value"),
        ("tru", 3, "expected 'true', found end of input"),
        ("trUe", 2, "expected 'true', found 'U'"),
        ("nul", 3, "expected 'null', found end of input"),
        ("fals e", 4, "expected 'false', found byte 0x20"),
        ("True", 0, "expected a JSON value, found 'T'"),
        ("'a'", 0, "expected a JSON value, found '''"),
        ("\u{0C}1", 0, "expected a JSON value, found byte 0x0C"),
        ("[1,\u{A0}2]", 3, "expected a JSON value, found byte 0xC2"),
    ]

    @Test("JSON parser rejects what RFC 8259 forbids, at the exact offset", arguments: 0..<rejected.count)
    func rejectsWithOffset(_ index: Int) {
        let (input, offset, words) = JSONParserTests.rejected[index]
        guard let error = parseError(input) else { return }
        #expect(error.code == .invalidJSON, "\(input.debugDescription)")
        #expect(error.offset == offset, "\(input.debugDescription): \(error.message)")
        #expect(error.message.contains(words), "\(input.debugDescription): \(error.message)")
        #expect(error.message.hasPrefix("invalid JSON at offset \(offset): "), "\(error.message)")
    }

    /// (bytes, offset of the first bad byte)
    static let invalidUTF8: [([UInt8], Int)] = [
        ([0x22, 0x61, 0x62, 0xFF, 0x22], 3),  // 0xFF is never UTF-8
        ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong '/'
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),  // overlong 3-byte
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // encoded surrogate U+D800
        ([0x22, 0x61, 0xE6, 0xBC, 0x22], 2),  // truncated 3-byte sequence
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
        ([0x22, 0x80, 0x22], 1),  // lone continuation byte
        ([0x22, 0xC3, 0xA9, 0x5C, 0x6E, 0xC3, 0x22], 5),  // é, \n, then a cut-off sequence (escaped path)
        ([0x5B, 0x22, 0x6F, 0x6B, 0x22, 0x2C, 0x22, 0xF8, 0x22, 0x5D], 7),  // second string of an array
    ]

    @Test("JSON parser rejects invalid UTF-8 inside strings at the first bad byte",
          arguments: 0..<invalidUTF8.count)
    func rejectsInvalidUTF8(_ index: Int) {
        let (bytes, offset) = JSONParserTests.invalidUTF8[index]
        guard let error = parseError(bytes) else { return }
        #expect(error.code == .invalidJSON)
        #expect(error.offset == offset, "\(bytes): \(error.message)")
        #expect(error.message == "invalid JSON at offset \(offset): invalid UTF-8 in string")
    }

    @Test("JSON parser rejects non-ASCII bytes and a byte order mark outside strings")
    func rejectsBytesOutsideStrings() {
        let bom = parseError([0xEF, 0xBB, 0xBF, 0x5B, 0x5D])
        #expect(bom?.offset == 0)
        #expect(bom?.message == "invalid JSON at offset 0: expected a JSON value, found byte 0xEF")
        let raw = parseError([0x5B, 0xC3, 0xA9, 0x5D])
        #expect(raw?.offset == 1)
        #expect(raw?.message.contains("found byte 0xC3") == true)
    }

    // MARK: - Depth

    @Test("JSON parser refuses 100,000-deep input without recursing", arguments: ["[", "{\"a\":"])
    func rejectsDeepInput(_ opener: String) {
        let input = [UInt8](String(repeating: opener, count: 100_000).utf8)
        guard let error = parseError(input) else { return }
        #expect(error.code == .jsonTooDeep)
        // The 513th opener is the one too deep.
        let offset = 512 * opener.utf8.count
        #expect(error.offset == offset)
        #expect(error.message == "JSON nested deeper than 512 levels at offset \(offset)")
    }

    @Test("JSON parser accepts exactly maxDepth levels and not one more")
    func depthLimitIsExact() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        var value = try JSONValue(parsing: ok)
        var depth = 0
        while case .array(let elements) = value {
            depth += 1
            value = elements.first ?? .null
        }
        #expect(depth == 512)

        let tooDeep = "[" + ok + "]"
        #expect(parseError(tooDeep)?.code == .jsonTooDeep)

        let small = "{\"a\":[{\"b\":[]}]}"
        #expect(throws: Never.self) { try JSONValue(parsing: small, maxDepth: 4) }
        let error = parseError(Array(small.utf8), maxDepth: 3)
        #expect(error?.code == .jsonTooDeep)
        #expect(error?.offset == 11)
        #expect(parseError(Array("[]".utf8), maxDepth: 0)?.code == .jsonTooDeep)
        #expect(try JSONValue(parsing: "\"scalar\"", maxDepth: 0) == "scalar")
    }

    // MARK: - What parses

    @Test("JSON parser reads every value kind and allowed whitespace")
    func parsesValues() throws {
        let text = " \t\r\n{ \"a\" : [ 1 , -2.5e+3 , true , false , null , \"s\" ] ,\n\"b\" : { } , \"c\" : [ ] }\r\n"
        let value = try JSONValue(parsing: text)
        let expected: JSONValue = [
            "a": [1, .number(JSONNumber(literal: "-2.5e+3")!), true, false, nil, "s"],
            "b": .object(JSONObject()),
            "c": [],
        ]
        #expect(value == expected)
        #expect(try JSONValue(parsing: "0") == 0)
        #expect(try JSONValue(parsing: "-0").numberValue?.literal == "-0")
        #expect(try JSONValue(parsing: "\"\"") == "")
        #expect(try JSONValue(parsing: "null") == nil)
    }

    @Test("JSON parser decodes every escape")
    func decodesEscapes() throws {
        let value = try JSONValue(parsing: #""\"\\\/\b\f\n\r\t\u00e9\u6F22\u8a9E\u0000 end""#)
        #expect(value == .string("\"\\/\u{08}\u{0C}\n\r\t\u{E9}\u{6F22}\u{8A9E}\u{0} end"))
        #expect(try JSONValue(parsing: #""\ud83d\ude00 \uD834\uDD1E""#) == "😀 \u{1D11E}")
        #expect(try JSONValue(parsing: "\"é漢語😀\"") == "é漢語😀")
    }

    @Test("JSON parser replaces lone surrogates in \\u escapes by U+FFFD")
    func replacesLoneSurrogates() throws {
        let cases: [(String, String)] = [
            (#""\ud800""#, "\u{FFFD}"),
            (#""\udc00""#, "\u{FFFD}"),
            (#""\ud800x""#, "\u{FFFD}x"),
            (#""\ud800\u0041""#, "\u{FFFD}A"),
            (#""\ud800\ud800\udc00""#, "\u{FFFD}\u{10000}"),
            (#""\udc00\ud800""#, "\u{FFFD}\u{FFFD}"),
            (#""a\ud83d""#, "a\u{FFFD}"),
            (#""\ud83d\n""#, "\u{FFFD}\n"),
        ]
        for (input, expected) in cases {
            #expect(try JSONValue(parsing: input) == .string(expected), "\(input)")
        }
    }

    @Test("JSON parser keeps 17-digit timetokens and big integers exact")
    func timetokensRoundTrip() throws {
        let history = "[[\"Pub1\",\"Pub2\",\"Pub3\"],13406746729185766,13406746780720711]"
        let value = try JSONValue(parsing: history)
        #expect(value.serializedString() == history)
        #expect(value[1]?.numberValue?.int64Value == 13_406_746_729_185_766)
        #expect(value[2]?.numberValue?.int64Value == 13_406_746_780_720_711)
        for literal in ["13406746729185767", "1180591620717411303424", "-9223372036854775808",
                        "9223372036854775807", "18446744073709551615", "18446744073709551616",
                        "-0", "1.50", "1E+2", "0.1e-7", "123456789012345678901234567890.5"] {
            let parsed = try JSONValue(parsing: literal)
            #expect(parsed.numberValue?.literal == literal)
            #expect(parsed.serializedString() == literal)
            #expect(parsed.serializedString(style: .python) == literal)
        }
    }

    @Test("JSON parser reads numbers of every length, eight digits a step, exactly")
    func numbersOfEveryLength() throws {
        // Every digit count up to 21, with each of the bytes that can end a number right after the digits, and
        // the number at every offset in the 8-byte steps (a prefix of spaces); a fraction or exponent after 8 digits.
        let digits = Array("9876543210123456789012".utf8)
        for count in 1...21 {
            let literal = String(decoding: digits.prefix(count), as: UTF8.self)
            for end in [",0]", "]", " ]", ".5]", "e2]", "E-1]"] {
                for pad in 0..<8 {
                    let text = String(repeating: " ", count: pad) + "[" + literal + end
                    let value = try JSONValue(parsing: text)
                    let number = try #require(value[0]?.numberValue)
                    let expected = literal + (end.hasPrefix(".") || end.hasPrefix("e") || end.hasPrefix("E")
                        ? String(end.dropLast()) : "")
                    #expect(number.literal == expected, "\(text)")
                    if expected == literal && count <= 18 {
                        #expect(number.int64Value == Int64(literal), "\(text)")
                    }
                }
            }
        }
        // A non-digit at each place of an 8-byte step: each is the end of the number or an error, as byte by byte.
        for place in 0..<9 {
            for stop in [":", "/", "a", " ", "-", "\u{7F}"] {
                var bytes = Array("12345678901234567".utf8)
                bytes.insert(contentsOf: Array(stop.utf8), at: place + 1)
                let text = "[" + String(decoding: bytes, as: UTF8.self) + "]"
                let head = String(decoding: bytes.prefix(place + 1), as: UTF8.self)
                if stop == " " {
                    #expect(parseError(text)?.offset == place + 3, "\(text)")
                } else {
                    #expect(parseError(text)?.offset == place + 2, "\(text)")
                }
                #expect(try JSONValue(parsing: head).numberValue?.literal == head)
            }
        }
    }

    @Test("JSON parser reads short strings the same on the fast path and off it")
    func shortStringsBothWays() throws {
        // Each string read twice: with 16 bytes after its opening quote (the fast path may take it) and at the
        // very end of the text (it cannot). Values, and errors with their offsets and messages, must agree.
        let stops: [[UInt8]] = [[0x22], [0x5C, 0x22], [0x5C, 0x6E], [0x5C], [0x01], [0x1F], [0x7F], [0xC3, 0xA9],
                                [0xC3], [0x80], [0xFF], [0x20]]
        for length in 0...17 {
            for stop in stops {
                // A lone backslash last escapes the closing quote: the texts then go on differently.
                for place in 0...length where !(stop == [0x5C] && place == length) {
                    var content = Array(repeating: UInt8(ascii: "k"), count: length)
                    content.insert(contentsOf: stop, at: place)
                    let quoted = [0x22] + content + [0x22]
                    let fast = [UInt8(ascii: "[")] + quoted + Array(",\"pad to sixteen bytes\"]".utf8)
                    let slow = Array("[\"pad to sixteen bytes\",".utf8) + quoted + [UInt8(ascii: "]")]
                    let keyed = [UInt8(ascii: "{")] + quoted + Array(":\"pad to sixteen bytes\"}".utf8)
                    let fastResult = Result { () throws(PNCryptError) in try JSONValue(parsing: fast)[0] }
                    let slowResult = Result { () throws(PNCryptError) in try JSONValue(parsing: slow)[1] }
                    let keyResult = Result { () throws(PNCryptError) in
                        try JSONValue(parsing: keyed).objectValue?.keys.first.map(JSONValue.string)
                    }
                    switch (fastResult, slowResult, keyResult) {
                    case (.success(let a), .success(let b), .success(let c)):
                        #expect(a == b && b == c, "\(content)")
                    case (.failure(let a), .failure(let b), .failure(let c)):
                        // The slow text has 23 more bytes before the string; the keyed one as many as the fast.
                        #expect(a.offset.map { $0 + 23 } == b.offset, "\(content)")
                        #expect(a.offset == c.offset, "\(content)")
                        #expect(a.code == b.code && a.code == c.code, "\(content)")
                    default:
                        Issue.record("fast, slow and key readings differ for \(content)")
                    }
                }
            }
        }
    }

    @Test("JSON parser: bytes readable after the text (a message's padding) are loaded, never used")
    func readablePastTheText() throws {
        // Short strings (the fast path loads 16 bytes) ending the text as an element, a key, a value, or left
        // unterminated, followed in memory by bytes that would end or extend them: the same values, the same errors.
        let stops: [[UInt8]] = [[], [0x22], [0x5C, 0x22], [0x5C], [0x01], [0x7F], [0xC3, 0xA9], [0xC3], [0xFF]]
        let tails: [[UInt8]] = [[0x22], [0x5C], [0x10], [0x01], [UInt8(ascii: "a")], [0xFF], [UInt8(ascii: "]")]]
            .map { [UInt8](repeating: $0[0], count: 16) } + [Array("\",\"x\"]}   ".utf8)]
        var checked = 0
        for length in 0...15 {
            for stop in stops {
                for place in 0...length {
                    var content = Array(repeating: UInt8(ascii: "k"), count: length)
                    content.insert(contentsOf: stop, at: place)
                    let quoted = [0x22] + content
                    let texts: [[UInt8]] = [
                        [UInt8(ascii: "[")] + quoted + Array("\"]".utf8),
                        Array("{\"a\":1,".utf8) + quoted + Array("\":2}".utf8),
                        Array("{\"a\":".utf8) + quoted + Array("\"}".utf8),
                        [UInt8(ascii: "[")] + quoted,
                        quoted + [0x22],
                        quoted,
                    ]
                    for text in texts {
                        let plain = Result { () throws(PNCryptError) in try JSONValue(parsing: text) }
                        for tail in tails {
                            let memory = text + tail
                            let read = memory.withUnsafeBytes { all in
                                Result { () throws(PNCryptError) in
                                    try JSONValue(parsing: UnsafeRawBufferPointer(rebasing: all[0..<text.count]),
                                                  readable: all.count)
                                }
                            }
                            switch (plain, read) {
                            case (.success(let a), .success(let b)):
                                #expect(a == b, "\(text) + \(tail)")
                            case (.failure(let a), .failure(let b)):
                                #expect(a.code == b.code && a.offset == b.offset && a.message == b.message,
                                        "\(text) + \(tail)")
                            default:
                                Issue.record("\(text) followed by \(tail): \(plain) without it, \(read) with it")
                            }
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 40_000)
    }

    @Test("JSON parser keeps duplicate keys in order and looks up the last")
    func duplicateKeys() throws {
        let value = try JSONValue(parsing: #"{"a":1,"b":2,"a":3}"#)
        #expect(value["a"] == 3)
        #expect(value.objectValue?.keys == ["a", "b", "a"])
        #expect(value.serializedString() == #"{"a":1,"b":2,"a":3}"#)
    }

    @Test("JSON parser reads String, [UInt8], Data and non-contiguous collections alike")
    func inputKinds() throws {
        let text = #"{"k":["v",1,{"é":null}]}"#
        let expected = try JSONValue(parsing: text)
        #expect(try JSONValue(parsing: Array(text.utf8)) == expected)
        #expect(try JSONValue(parsing: Data(text.utf8)) == expected)
        #expect(try JSONValue(parsing: text.utf8.lazy.map { $0 }) == expected)
        #expect(try JSONValue(parsing: Substring(text).utf8) == expected)
        let error = parseError(Array("[1,]".utf8))
        var lazyError: PNCryptError?
        do { _ = try JSONValue(parsing: "[1,]".utf8.lazy.map { $0 }) } catch { lazyError = error }
        #expect(lazyError == error)
    }

    @Test("JSON parser handles long strings, long arrays and many escapes")
    func largeInput() throws {
        let long = String(repeating: "abcé漢😀\\n", count: 10_000)
        let value = try JSONValue(parsing: "\"" + long + "\"")
        #expect(value.stringValue?.count == 10_000 * 7)
        let array = "[" + (0..<50_000).map(String.init).joined(separator: ",") + "]"
        let parsed = try JSONValue(parsing: array)
        #expect(parsed.arrayValue?.count == 50_000)
        #expect(parsed[49_999] == 49_999)
        #expect(parsed.serializedString() == array)
    }
}
