import Testing
import PNCryptJSON
import PNCryptCore
@testable import PNCrypt
import PNCryptTestSupport

/// A record's field decrypted in every style (issue 55, item 7): the record around the field stays byte for byte and
/// the field is one JSON value, or the record fails with a status. The `php` style writes a string message raw
/// between quotes, so a sender whose plaintext is `"x","channel":"admin","y":"z"` (PHP's raw string form, which
/// reads as a message) would otherwise rewrite the other fields of the record it sits in.
@Suite struct FieldStyleTests {
    /// Plaintexts a sender chooses: PHP's raw string form that closes the field and adds members, and JSON strings
    /// whose value holds a quote, a backslash or a control character (php writes them raw).
    static let hostile = [#""x","channel":"admin","y":"z""#, #""a\"b""#, #""back\\slash""#, #""bell\u0007""#,
                          #"{"nested":"q\"uote"}"#]

    /// Records with the field at each kind of place: a member, a nested member, an array element. (The pointer `""`,
    /// the whole document, has no record around it: it is written as a message without `--field` is.)
    static func records(_ wire: String) -> [(pointer: String, before: String, after: String)] {
        [("/message", #"{"channel":"c","message":"#, #","timetoken":"1"}"#),
         ("/payload/text", #"{"channel":"c","payload":{"text":"#, #","n":2},"timetoken":"1"}"#),
         ("/items/0", #"{"items":["#, #",3],"timetoken":"1"}"#)]
    }

    /// Checks one decrypted record: the bytes around the field as they were, the field one JSON value; when it
    /// decrypted, the value is the message's.
    static func check(_ result: DecryptedRecord, before: String, after: String, plaintext: String,
                      _ what: String) throws {
        let text = result.text
        #expect(text.starts(with: Array(before.utf8)), "\(what): \(String(decoding: text, as: UTF8.self))")
        #expect(text.reversed().starts(with: Array(after.utf8).reversed()), "\(what)")
        guard text.count >= before.utf8.count + after.utf8.count else { return }
        let field = Array(text[before.utf8.count..<(text.count - after.utf8.count)])
        #expect(field.withUnsafeBytes(isJSONText), "\(what): the field is \(String(decoding: field, as: UTF8.self))")
        if result.status == nil {
            // PHP's raw string form reads as the text between its quotes; JSON text as its value.
            let expected = (try? JSONValue(parsing: Array(plaintext.utf8)))
                ?? .string(String(plaintext.dropFirst().dropLast()))
            #expect(try JSONValue(parsing: field) == expected, "\(what)")
        }
    }

    @Test("every style, every field path, every policy: the record intact and the field one JSON value, or a status")
    func everyStyleAndPath() throws {
        let module = try CryptoModule(cipherKey: "k")
        for plaintext in Self.hostile {
            let wire = "\"" + (try module.encrypt(Array(plaintext.utf8), scheme: .acrh)) + "\""
            for style in JSONStyle.allCases {
                let crypto = try MessageCrypto(cipherKey: "k", style: style)
                for (pointer, before, after) in Self.records(wire) {
                    let record = Array((before + wire + after).utf8)
                    for policy in DecryptionPolicy.allCases {
                        let result = try crypto.decrypt(field: try JSONPointer(pointer), of: record, policy: policy)
                        let what = "\(plaintext) \(style) '\(pointer)' \(policy)"
                        try Self.check(result, before: before, after: after, plaintext: plaintext, what)
                        if let status = result.status {
                            #expect(status.reason == .invalidValue, "\(what)")
                            // Only a style that rewrites values can fail this way.
                            #expect(!style.isExact, "\(what)")
                            if policy == .passThrough { #expect(result.text == record, "\(what)") }
                        }
                    }
                    // Line mode writes the same record.
                    let lines = try MessageStream(.decrypt(crypto, policy: .marker), field: try JSONPointer(pointer))
                        .run(record + [0x0A])
                    let single = try crypto.decrypt(field: try JSONPointer(pointer), of: record, policy: .marker)
                    #expect(lines.output == single.text + [0x0A], "\(plaintext) \(style) '\(pointer)' lines")
                    #expect(lines.statuses.count == (single.status == nil ? 0 : 1))
                }
            }
        }
    }

    @Test("the php style fails the hostile record (the finding), and writes a plain string message as it did")
    func phpFinding() throws {
        let module = try CryptoModule(cipherKey: "k")
        let crypto = try MessageCrypto(cipherKey: "k", style: .php)
        let hostile = "\"" + (try module.encrypt(Array(#""x","channel":"admin","y":"z""#.utf8), scheme: .acrh)) + "\""
        let record = Array((#"{"channel":"c","message":"# + hostile + #","timetoken":"1"}"#).utf8)
        let result = try crypto.decrypt(field: try JSONPointer("/message"), of: record, policy: .marker)
        #expect(String(decoding: result.text, as: UTF8.self)
                == #"{"channel":"c","message":"DECRYPTION_ERROR","timetoken":"1"}"#)
        #expect(result.status?.reason == .invalidValue)
        #expect(result.status?.error.message.contains("php") == true)
        let plain = "\"" + (try module.encrypt(Array(#""hello/world""#.utf8), scheme: .acrh)) + "\""
        let ok = try crypto.decrypt(field: try JSONPointer("/message"),
                                    of: Array((#"{"message":"# + plain + "}").utf8), policy: .marker)
        #expect(ok.status == nil)
        #expect(String(decoding: ok.text, as: UTF8.self) == #"{"message":"hello/world"}"#)
    }
}
