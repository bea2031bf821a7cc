import Testing
import PNCryptBase
import PNCryptJSON
import PNCryptTestSupport

/// The JSON codec's fast paths: strings scanned 8 bytes at a time (parser and writer), stacks and output that
/// start in stack memory and move to the heap, literals compared 4 bytes at a time. Each is checked at every
/// position against a plain reference, so a word boundary cannot hide a mistake.
@Suite("JSON fast paths")
struct JSONFastPathTests {
    /// The JSON string literal of `string` in `style`, one scalar at a time (the rules of `JSONStyle`).
    static func reference(_ string: String, _ style: JSONStyle) -> String {
        func unit(_ value: UInt32) -> String {
            let hex = String(value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where style == .apple: out += "\\/"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += unit(scalar.value)
            case "\u{7F}" where style == .python: out += unit(0x7F)
            case _ where scalar.value >= 0x80 && (style == .python || style == .ascii):
                for code in String(scalar).utf16 { out += unit(UInt32(code)) }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static let specials: [String] = ["\"", "\\", "/", "\u{7F}", "\u{1}", "\u{1F}", "\n", "é", "漢", "😀", " "]

    @Test("JSON writer escapes a special character at every position around the 8-byte words",
          arguments: JSONStyle.exactStyles)
    func writerEveryPosition(_ style: JSONStyle) throws {
        for special in Self.specials {
            for position in 0..<20 {
                for after in [0, 1, 7, 8, 9] {
                    let string = String(repeating: "a", count: position) + special
                        + String(repeating: "b", count: after)
                    let written = JSONValue.string(string).serializedString(style: style)
                    #expect(written == Self.reference(string, style), "\(style) \(position) \(after)")
                    #expect(try JSONValue(parsing: written) == .string(string))
                }
            }
        }
        // Two specials in one word, and plain strings of every length up to 40.
        for length in 0...40 {
            let plain = String(repeating: "x", count: length)
            #expect(JSONValue.string(plain).serializedString(style: style) == "\"" + plain + "\"")
            let mixed = plain + "\"\u{2}é" + plain
            #expect(JSONValue.string(mixed).serializedString(style: style) == Self.reference(mixed, style))
        }
    }

    /// The JSON text of `value` in `style`, written by the test from the rules (members in order, duplicates
    /// kept), for the writer's walk over containers.
    static func referenceText(_ value: JSONValue, _ style: JSONStyle) -> String {
        let comma = style == .python ? ", " : ","
        let colon = style == .python ? ": " : ":"
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return number.literal
        case .string(let string): return reference(string, style)
        case .array(let elements):
            return "[" + elements.map { referenceText($0, style) }.joined(separator: comma) + "]"
        case .object(let object):
            return "{" + object.map { reference($0.key, style) + colon + referenceText($0.value, style) }
                .joined(separator: comma) + "}"
        }
    }

    @Test("JSON writer writes object keys of every kind (read in place or copied) and nested containers",
          arguments: JSONStyle.exactStyles)
    func writerObjectWalk(_ style: JSONStyle) throws {
        // Keys around the small-string limit (15 bytes), keys that need escapes (so not written from their
        // words), non-ASCII and empty keys; each with a value of every kind, nested, and a duplicate key.
        var keys = [""]
        for length in [1, 7, 8, 9, 14, 15, 16, 17, 31] { keys.append(String(repeating: "k", count: length)) }
        for special in Self.specials {
            keys += [special, "ab" + special, String(repeating: "m", count: 13) + special,
                     String(repeating: "n", count: 15) + special]
        }
        let leaves: [JSONValue] = [nil, true, false, 0, -17, 13_406_746_729_185_766,
                                   .number(JSONNumber(literal: "1.50")!), "", "short",
                                   "a string longer than fifteen bytes", "é\"\n"]
        for (index, key) in keys.enumerated() {
            let leaf = leaves[index % leaves.count]
            let inner = JSONValue.object(JSONObject([(key, leaf), ("x", .array([leaf, [], [:], [leaf]]))]))
            let value = JSONValue.object(JSONObject([(key, leaf), (key, inner), ("list", .array([inner, leaf])),
                                                     ("e", .object(JSONObject())), (key, .array([]))]))
            let written = value.serializedString(style: style)
            #expect(written == Self.referenceText(value, style), "\(style) \(key.debugDescription)")
            #expect(try JSONValue(parsing: written) == value)
            // The value itself is unchanged by being written (the walk reads it in place).
            #expect(value.serializedString(style: style) == written)
        }
    }

    @Test("JSON writer writes every integer length exactly, at each power of ten and around it")
    func integerLengths() {
        var values: [Int64] = [0, 1, -1, Int64.max, Int64.min, Int64.min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power, 13_406_746_729_185_766 % power]
        }
        // Digits in groups of 8 (the writer's arithmetic): zeros inside a group, and a sweep of values of every
        // length from the tests' seeded generator.
        values += [1_000_000_007, 100_000_000_000_000_001, 1_000_000_000_000_000_009, 90_000_000_900_000_009,
                   -4_000_000_000_000_000_004]
        var random = SeededRandom(seed: 0x5EED)
        for length in 1...19 {
            for _ in 0..<20 {
                let mixed = random.next()
                var bound: UInt64 = 1
                for _ in 0..<length { bound = bound.multipliedReportingOverflow(by: 10).partialValue }
                let value = Int64(truncatingIfNeeded: length == 19 ? mixed >> 1 : mixed % bound)
                values += [value, -value]
            }
        }
        for value in values {
            #expect(JSONValue.number(JSONNumber(value)).serializedString() == String(value))
        }
    }

    @Test("UTF-8 validation (ASCII checked 8 bytes at a time) agrees with the standard library at every position")
    func utf8Validation() {
        for length in 0..<24 {
            for position in 0..<max(length, 1) {
                for bad in [[UInt8(0xFF)], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC3, 0xA9], [0x7F]] {
                    var bytes = [UInt8](repeating: 0x61, count: length)
                    if length > 0 { bytes.replaceSubrange(position..<min(position + 1, length), with: bad) }
                    let expected = String(validating: bytes, as: UTF8.self) != nil
                    #expect(bytes.withUnsafeBytes { isValidUTF8($0) } == expected, "\(bytes)")
                }
            }
        }
    }

    @Test("JSON parser stops a string at the right byte at every position around the 8-byte words")
    func parserEveryPosition() throws {
        for position in 0..<24 {
            let before = String(repeating: "p", count: position)
            let after = String(repeating: "q", count: 12)
            // A raw control character: refused at its own offset.
            let control = try #require(parseError("\"" + before + "\u{1}" + after + "\""))
            #expect(control.offset == 1 + position)
            #expect(control.message.hasSuffix("unescaped control character U+0001 in string"))
            // A quote ends the string there: what follows is left over.
            let quote = try #require(parseError("\"" + before + "\"" + after + "\""))
            #expect(quote.offset == 2 + position)
            #expect(quote.message.contains("unexpected 'q' after the JSON value"))
            // An escape and non-ASCII text decode wherever they sit.
            #expect(try JSONValue(parsing: "\"" + before + "\\n" + after + "\"") == .string(before + "\n" + after))
            let text = before + "é😀" + after
            #expect(try JSONValue(parsing: "\"" + text + "\"") == .string(text))
            // Invalid UTF-8: refused at the first bad byte, after a run of good ones.
            let bytes = [UInt8]("\"\(before)".utf8) + [0xFF] + [UInt8]("\(after)\"".utf8)
            let invalid = try #require(parseError(bytes))
            #expect(invalid.offset == 1 + position)
            #expect(invalid.message.hasSuffix("invalid UTF-8 in string"))
            // Unterminated: the error names the string's start.
            let open = try #require(parseError("[\"" + before + after))
            #expect(open.message.hasSuffix("unterminated string starting at offset 1"))
        }
    }

    @Test("JSON parser reads literals in any position, and refuses a cut or wrong one at its first wrong byte")
    func literals() throws {
        #expect(try JSONValue(parsing: "[true,false,null,true]") == [true, false, nil, true])
        #expect(try JSONValue(parsing: "true") == true)
        #expect(try JSONValue(parsing: "false") == false)
        #expect(try JSONValue(parsing: "null") == nil)
        for (text, offset) in [("tru", 3), ("nul", 3), ("fals", 4), ("[truE]", 4), ("[fAlse]", 2), ("nulll", 4),
                               ("[nu", 3), ("f", 1), ("[t,", 2)] {
            let error = try #require(parseError(text), "\(text)")
            #expect(error.offset == offset, "\(text): \(error.message)")
        }
    }

    @Test("JSON parser's stacks move from stack memory to the heap in the middle of a document")
    func stacksGrow() throws {
        // 40 members, each an array of 20 objects of 3 members, the last one 40 deep: every stack outgrows its
        // stack memory while others still hold values.
        var members: [(String, JSONValue)] = []
        for m in 0..<40 {
            var elements: [JSONValue] = []
            for e in 0..<20 {
                var deep: JSONValue = .string("leaf \(m) \(e)")
                if e == 19 { for level in 0..<40 { deep = ["level \(level)": deep] } }
                elements.append(["a": .number(JSONNumber(m * 100 + e)), "b": deep, "c": [nil, true]])
            }
            members.append(("member \(m)", .array(elements)))
        }
        let value = JSONValue.object(JSONObject(members))
        let text = value.serializedString()
        #expect(try JSONValue(parsing: text) == value)
        // A failure deep inside, with values on every stack, is reported and nothing leaks (ASan in CI).
        let broken = String(text.dropLast(200)) + "]"
        #expect(parseError(broken)?.code == .invalidJSON)
    }

    @Test("short ASCII strings built and read as String words match the standard library's")
    func smallStrings() throws {
        #if arch(x86_64) || arch(arm64)
        #expect(SmallASCII.isAvailable, "the small-string layout check failed: the JSON fast paths are off")
        #endif
        guard SmallASCII.isAvailable else { return }
        let alphabet = Array(" !\"#$%&'()*+,-./0123456789:;<=>?@AZaz[\\]^_`{|}~\u{7F}\u{1}\u{0}".utf8)
        for count in 0...SmallASCII.capacity {
            for offset in 0..<alphabet.count - count {
                let bytes = Array(alphabet[offset..<offset + count])
                let made = bytes.withUnsafeBufferPointer {
                    SmallASCII.make($0.baseAddress!, count: count, readable: count)
                }
                let padded = bytes + [UInt8](repeating: 0x41, count: 16)
                let madeFromWords = padded.withUnsafeBufferPointer {
                    SmallASCII.make($0.baseAddress!, count: count, readable: padded.count)
                }
                #expect(madeFromWords == made)
                let official = String(decoding: bytes, as: UTF8.self)
                #expect(made == official)
                #expect(Array(made.utf8) == bytes)
                #expect(made.hashValue == official.hashValue)
                let read = try #require(SmallASCII.read(official))
                #expect(read.count == count)
                let words = withUnsafeBytes(of: (read.low, read.high)) { Array($0.prefix(count)) }
                #expect(words == bytes)
                // Through the codec: written (escaped where needed) and parsed back.
                let value = JSONValue.string(official)
                for style in JSONStyle.exactStyles {
                    let text = value.serializedString(style: style)
                    #expect(text == Self.reference(official, style))
                    #expect(try JSONValue(parsing: text) == value)
                }
            }
        }
        #expect(SmallASCII.read(String(repeating: "z", count: 16)) == nil)
        #expect(SmallASCII.read("é") == nil)
    }

    private func parseError(_ text: String) -> PNCryptError? { parseError(Array(text.utf8)) }

    private func parseError(_ bytes: [UInt8]) -> PNCryptError? {
        do {
            _ = try JSONValue(parsing: bytes)
            return nil
        } catch {
            return error
        }
    }
}
