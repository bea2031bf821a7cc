import Foundation
import PNCryptJSON
import PNCryptTestSupport

/// Random JSON messages and cipher keys for the interop suite.
///
/// Every value is one the Python SDK reads and writes back unchanged, so values can be compared exactly:
/// object keys are unique within an object (Python dicts keep one value per key), and every non-integer number
/// is written as Python's `repr` writes it (`1e+20`, not `1E20` or `100000000000000000000.0`). Integers of any
/// size are fine (Python ints are exact), and so is every Unicode scalar (no lone surrogates: a Swift `String`
/// cannot hold one).
struct MessageGenerator {
    var rng: SeededRandom

    /// String pieces: ASCII words, non-ASCII, astral characters (surrogate pairs in JSON), every kind of escape,
    /// control characters, U+007F (escaped by Python only), U+2028/U+2029, BOM, the last scalars of planes 0/16,
    /// and a decomposed `é` (canonically equal to `é` in Swift, different bytes: compared as bytes below).
    static let pieces: [String] = [
        "hello", "world", "PubNub", "timetoken", " ", "  ", "a", "Z", "0", "42", "-", ".",
        "é", "ü", "ñ", "ß", "漢語", "日本語", "ключ", "Ελληνικά", "עברית", "العربية", "हिन्दी",
        "😀", "🔑", "👍🏽", "🇫🇷", "\u{1D11E}", "\u{10FFFF}", "\u{FFFF}", "\u{FEFF}", "\u{FFFD}",
        "\"", "\\", "/", "\\\"", "</script>", "\n", "\r\n", "\t", "\u{8}", "\u{C}",
        "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "\u{80}", "\u{9F}", "\u{A0}", "\u{2028}", "\u{2029}",
        "e\u{301}", "{", "}", "[", "]", ":", ",", "'", "`", "$", "%", "&", "\u{200D}",
    ]

    /// Object keys: plain, empty, non-ASCII, astral, with escapes.
    static let keyPieces: [String] = [
        "text", "id", "tt", "meta", "a", "b", "", "é", "漢", "ключ", "😀", "\u{1D11E}", "\"q\"", "back\\slash",
        "new\nline", "tab\t", "\u{0}", "\u{7F}", "/path", "key with spaces", "\u{2028}",
    ]

    /// Integers that break a codec going through `Double` or `Int64`.
    static let bigIntegers: [String] = [
        "13406746729185766", "13406746780720711", "17000000000000001", "9007199254740993",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
        "18446744073709551616", "-18446744073709551617", "123456789012345678901234567890",
        "-100000000000000000000000000", "0", "-1",
    ]

    /// Non-integers written as Python's `repr` writes them.
    static let floats: [String] = [
        "0.5", "-0.0", "0.1", "1.5", "-2.25", "3.141592653589793", "1e+20", "1.5e-07", "1e+16", "123456.789",
        "2.5e-05", "6.02214076e+23", "-1.7976931348623157e+308", "5e-324",
    ]

    /// Top-level strings whose text is itself JSON (the SDK's legacy cryptor decodes JSON twice).
    static let jsonLookingStrings: [String] = [
        "42", "[1, 2]", "{\"a\": \"\\u00e9\"}", "true", "null", "\"quoted\"", "-7", "[]", "{}",
        "13406746729185766",
    ]

    init(rng: SeededRandom) {
        self.rng = rng
    }

    mutating func string(maxPieces: Int = 6) -> String {
        var text = ""
        for _ in 0..<rng.int(0...maxPieces) { text += rng.pick(Self.pieces) }
        return text
    }

    mutating func number() -> JSONValue {
        let literal: String
        switch rng.below(5) {
        case 0: literal = rng.pick(Self.bigIntegers)
        case 1: literal = rng.pick(Self.floats)
        case 2: literal = String(Int64(bitPattern: rng.next()))
        case 3:
            // m / 2^k: exact in binary, written the same by Swift's and Python's shortest representations
            let value = Double(rng.int(-(1 << 20)...(1 << 20))) / Double(1 << rng.int(1...10))
            literal = value == value.rounded() ? String(Int64(value)) : value.description
        default: literal = String(rng.int(-1000...100_000))
        }
        return .number(JSONNumber(literal: literal)!)
    }

    mutating func scalar() -> JSONValue {
        switch rng.below(8) {
        case 0: return .null
        case 1: return .bool(rng.chance(1, in: 2))
        case 2, 3: return number()
        default: return .string(string())
        }
    }

    /// A value with about `budget` nodes, nested at most `depth` more levels.
    mutating func value(depth: Int, budget: inout Int) -> JSONValue {
        budget -= 1
        guard depth > 0, budget > 0, rng.chance(2, in: 5) else { return scalar() }
        if rng.chance(1, in: 2) {
            var elements: [JSONValue] = []
            for _ in 0..<rng.int(0...6) where budget > 0 {
                elements.append(value(depth: depth - 1, budget: &budget))
            }
            return .array(elements)
        }
        var object = JSONObject()
        var used = Set<String>()
        for _ in 0..<rng.int(0...6) where budget > 0 {
            var key = rng.pick(Self.keyPieces)
            if rng.chance(1, in: 3) { key += string(maxPieces: 2) }
            guard used.insert(key).inserted else { continue }
            object.append(value(depth: depth - 1, budget: &budget), forKey: key)
        }
        return .object(object)
    }

    /// A chain of `levels` arrays and objects around `leaf`.
    mutating func nested(_ leaf: JSONValue, levels: Int) -> JSONValue {
        var value = leaf
        for level in 0..<levels {
            value = rng.chance(1, in: 2) ? .array([value])
                : .object(["l\(level)": value, "é": .number(JSONNumber(level))])
        }
        return value
    }

    /// One message. Unless it is a scalar or a JSON-looking string, it is padded with ASCII so that its Python
    /// JSON text (what the SDK encrypts) is 16k-1, 16k or 16k+1 bytes long, exercising the PKCS#7 edges.
    mutating func message() -> JSONValue {
        let kind = rng.below(20)
        var budget = rng.chance(1, in: 10) ? rng.int(100...600) : rng.int(1...40)
        var padded = true
        var message: JSONValue
        switch kind {
        case 0..<8:
            var object = JSONObject()
            var used = Set<String>()
            for _ in 0..<rng.int(1...6) {
                let key = rng.pick(Self.keyPieces) + (rng.chance(1, in: 3) ? string(maxPieces: 2) : "")
                guard used.insert(key).inserted else { continue }
                object.append(value(depth: 6, budget: &budget), forKey: key)
            }
            message = .object(object)
        case 8..<12:
            var elements: [JSONValue] = []
            for _ in 0..<rng.int(0...6) { elements.append(value(depth: 6, budget: &budget)) }
            message = .array(elements)
        case 12..<14:
            message = nested(value(depth: 2, budget: &budget), levels: rng.int(10...22))
        case 14..<17:
            // a string that does not parse as JSON (it starts with a letter that begins no JSON literal)
            message = .string(rng.pick(["x", "é", "漢", "😀", "Q"]) + string(maxPieces: 10))
        case 17:
            message = .string(rng.pick(Self.jsonLookingStrings))
            padded = false
        default:
            message = scalar()
            if case .string(let text) = message {
                message = .string("s" + text)
            } else {
                padded = false
            }
        }
        return padded ? pad(message) : message
    }

    /// Pads `message` (object, array or string) so that its Python JSON text ends near a multiple of 16.
    mutating func pad(_ message: JSONValue) -> JSONValue {
        func with(_ filler: String) -> JSONValue {
            switch message {
            case .object(var object):
                object.append(.string(filler), forKey: "~pad")
                return .object(object)
            case .array(var elements):
                elements.append(.string(filler))
                return .array(elements)
            case .string(let text):
                return .string(text + filler)
            default:
                return message
            }
        }
        let base = with("").serialized(style: .python).count
        var target = (base + 16) / 16 * 16 + 16 * rng.pick([0, 0, 0, 1, 2]) + rng.pick([-1, 0, 1])
        if target < base { target += 16 }
        let letters: [Character] = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var filler = ""
        for _ in 0..<(target - base) { filler.append(rng.pick(letters)) }
        let result = with(filler)
        assert(result.serialized(style: .python).count == target)
        return result
    }

    /// A cipher key: well-known ones, random ASCII, random non-ASCII (with astral characters), or long.
    mutating func cipherKey() -> String {
        switch rng.below(6) {
        case 0:
            return rng.pick(["enigma", "myCipherKey", "pubnubenigma", "k", "ключ🔑", "漢語キー", "😀\u{1D11E}", "é",
                             " spaced key ", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"])
        case 1, 2:
            let ascii = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }
            return String((0..<rng.int(1...48)).map { _ in rng.pick(ascii) })
        case 3, 4:
            var key = ""
            while key.isEmpty {
                for _ in 0..<rng.int(1...5) {
                    key += rng.pick(["é", "漢", "ключ", "😀", "\u{1D11E}", "k", "ß", "🔑", "1"])
                }
            }
            return key
        default:
            let pool = ["a", "b", "é", "語", "😀", "-", "9"]
            return String((0..<rng.int(64...300)).map { _ in Character(rng.pick(pool)) })
        }
    }
}
