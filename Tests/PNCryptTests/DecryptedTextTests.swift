import Testing
import PNCryptJSON
import PNCryptCore
@testable import PNCrypt

/// `MessageCrypto.withDecryptedText`, the receive path of the C library and the line and envelope paths: the text
/// it gives is what `decrypt(jsonText:policy:)` and then `withSerialized(style:)` give, and it declines (false)
/// wherever that path does something else.
@Suite("Decrypted message text without a value")
struct DecryptedTextTests {
    static let messages: [JSONValue] = [
        ["text": "Hello from pncrypt, message 42", "user": "alice", "timetoken": 13406746729185766,
         "tags": ["news", "sport"], "ok": true],
        "just a string", 42, -0.5, true, nil, [], [:], [[[]]], ["a": ["b": ["c": [1, 2.5e10, "x"]]]],
        ["é": "漢語 😀", "ctl": "line\nbreak\ttab\u{1}", "quote": "\"\\/", "del": "\u{7F}", "sep": "\u{2028}"],
        ["dup": 1, "dup": 2, "n": 1.0, "m": -0, "big": .number(JSONNumber(literal: "123456789012345678901234567890")!)],
    ]

    /// The full path's text, or nil when it does not deliver a decrypted message.
    static func expected(_ crypto: MessageCrypto, _ wire: [UInt8], _ style: JSONStyle) throws -> [UInt8]? {
        let result = try crypto.decrypt(jsonText: wire, policy: .marker)
        return result.status == nil ? result.message.serialized(style: style) : nil
    }

    static func fast(_ crypto: MessageCrypto, _ wire: [UInt8], _ style: JSONStyle) -> [UInt8]? {
        var text: [UInt8]?
        let written = wire.withUnsafeBytes {
            crypto.withDecryptedText(stringLiteral: $0, style: style) { text = Array($0) }
        }
        #expect(written == (text != nil))
        return text
    }

    @Test("Every message, scheme and exact style: the same text as decrypting and writing the value")
    func sameText() throws {
        for scheme in [Scheme.legacy, .legacyRandomIV, .acrh] {
            let sender = try MessageCrypto(cipherKey: "text-path", scheme: scheme)
            for reading in [ReadPolicy.only(scheme), .rule] {
                let receiver = try MessageCrypto(cipherKey: "text-path", scheme: scheme, reading: reading)
                for message in Self.messages {
                    let wire = try sender.publishBody(message)
                    for style in JSONStyle.allCases where style.isExact {
                        let text = Self.fast(receiver, wire, style)
                        #expect(text != nil, "\(scheme) \(reading) \(style) \(message)")
                        #expect(text == (try Self.expected(receiver, wire, style)), "\(scheme) \(style) \(message)")
                    }
                }
            }
        }
    }

    @Test("Declined, with nothing written, wherever the full path does something else; that path then agrees")
    func declines() throws {
        let crypto = try MessageCrypto(cipherKey: "text-path", scheme: .acrh)
        let message: JSONValue = ["text": "hello"]
        let wire = try crypto.publishBody(message)
        // A wrong key: no reading qualifies; the full path delivers the marker with a status.
        let stranger = try MessageCrypto(cipherKey: "another key", scheme: .acrh)
        #expect(Self.fast(stranger, wire, .compact) == nil)
        #expect(try stranger.decrypt(jsonText: wire, policy: .marker).status != nil)
        // An SDK style: only a value can be written in it.
        for style in JSONStyle.allCases where !style.isExact {
            #expect(Self.fast(crypto, wire, style) == nil, "\(style)")
        }
        // Text that is not one plain string literal of Base64: an object, an escape, no quotes, not encrypted.
        let literal = String(decoding: wire, as: UTF8.self)
        for text in ["{\"m\":\(literal)}", "\"\\u0041" + literal.dropFirst(),
                     String(literal.dropFirst().dropLast()), "\"hello\"", "42"] {
            #expect(Self.fast(crypto, Array(text.utf8), .compact) == nil, "\(text)")
        }
        // White space around the literal is taken, as the full path takes it.
        let spaced = Array(" \n\(literal)\t ".utf8)
        #expect(Self.fast(crypto, spaced, .compact) == Array(#"{"text":"hello"}"#.utf8))
        // PHP's raw string form (not JSON): the full path makes the string; this one declines.
        let raw = Array(#""say "hi" \ now""#.utf8)
        let rawWire = Array("\"\(try CryptoModule(cipherKey: "text-path", scheme: .acrh).encrypt(raw))\"".utf8)
        #expect(Self.fast(crypto, rawWire, .compact) == nil)
        #expect(try crypto.decrypt(jsonText: rawWire, policy: .marker).message == #"say "hi" \ now"#)
    }

    @Test("A key ring: the key that reads the message, whichever it is, gives the same text")
    func keyRing() throws {
        let ring = MessageCrypto(keys: try KeyRing(["old", "current", "next"]))
        for key in ["old", "current", "next"] {
            for scheme in [Scheme.legacy, .legacyRandomIV, .acrh] {
                let wire = try MessageCrypto(cipherKey: key, scheme: scheme).publishBody(Self.messages[0])
                let text = Self.fast(ring, wire, .compact)
                let expected = try Self.expected(ring, wire, .compact)
                #expect(text != nil && text == expected, "\(key) \(scheme)")
            }
        }
    }

    @Test("Headerless data whose two readings are both JSON: the text of the reading the decision picks")
    func bothReadingsJSON() throws {
        // Random-IV data whose IV is chosen so that the fixed-IV reading's first block is `first`: that reading is
        // `first` and then the message, so both readings pass every check and the headerless rule decides.
        let key = "text-path"
        let sender = try CryptoModule(cipherKey: key)
        let receiver = try MessageCrypto(cipherKey: key, scheme: .legacy)
        func wire(_ message: [UInt8], first: String) throws -> [UInt8] {
            let wanted = zip(Array(first.utf8), Array("0123456789012345".utf8)).map { $0 ^ $1 }
            // Encrypting `wanted` after a zero IV gives E(wanted) as its first ciphertext block: the IV to use.
            let zeroIV = [UInt8](repeating: 0, count: 16)
            let iv = Array(try sender.encryptBinary(wanted, scheme: .legacyRandomIV, iv: zeroIV)[16..<32])
            let data = try sender.encryptBinary(message, scheme: .legacyRandomIV, iv: iv)
            return Array("\"\(Base64.encode(data))\"".utf8)
        }
        // White space first: both readings give the same text.
        for message: JSONValue in [["text": "hello"], [1, 2, 3], "a string message"] {
            let spaced = try wire(message.serialized(), first: String(repeating: " ", count: 16))
            let expected = try Self.expected(receiver, spaced, .compact)
            #expect(expected == message.serialized())
            #expect(Self.fast(receiver, spaced, .compact) == expected, "\(message)")
        }
        // Digits first, the message a digit: the readings are different numbers, 12345678901234567 and 7; the
        // fixed-IV reading's first block is text, so the rule takes it, on both paths.
        let digits = try wire(Array("7".utf8), first: "1234567890123456")
        let expected = try Self.expected(receiver, digits, .compact)
        #expect(expected == Array("12345678901234567".utf8))
        #expect(Self.fast(receiver, digits, .compact) == expected)
    }
}
