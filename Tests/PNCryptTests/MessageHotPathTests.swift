import Testing
@testable import PNCrypt
@testable import PNCryptJSON
@testable import PNCryptCore

/// The message hot path's inline structures and reused buffers give what the plain paths give.
@Suite struct MessageHotPathTests {
    static let message: JSONValue = [
        "text": "Hello from pncrypt, message 42", "user": "alice", "timetoken": .number(JSONNumber(13406746729185766)),
        "tags": ["news", "sport"], "ok": true, "é": "/ü😀",
    ]

    @Test("appendPublishBody appends exactly publishBody's bytes (fixed IV) or a body that decrypts to the message")
    func appendPublishBody() throws {
        for scheme in [Scheme.legacy, .legacyRandomIV, .acrh] {
            for style in JSONStyle.allCases {
                let crypto = try MessageCrypto(cipherKey: "hot-path", scheme: scheme, reading: .only(scheme),
                                               style: style)
                let prefix = Array("previous line\n".utf8)
                var output = prefix
                try crypto.appendPublishBody(Self.message, to: &output)
                #expect(Array(output.prefix(prefix.count)) == prefix)
                let body = Array(output.dropFirst(prefix.count))
                if scheme == .legacy {
                    #expect(body == (try crypto.publishBody(Self.message)), "\(scheme) \(style)")
                }
                let opened = try crypto.decrypt(jsonText: body, policy: .marker)
                #expect(opened.status == nil, "\(scheme) \(style)")
                let written = try JSONValue(parsing: Self.message.serialized(style: style))
                #expect(opened.message == written, "\(scheme) \(style)")
            }
        }
    }

    @Test("a status is one word with value semantics: a changed copy leaves the original, equality is field-wise")
    func statusBox() throws {
        // One word, so that a message that decrypted carries a nil pointer, and `status == nil` tests it.
        #expect(MemoryLayout<MessageStatus?>.size == MemoryLayout<Int>.size)
        let crypto = try MessageCrypto(cipherKey: "status", scheme: .acrh)
        let failed = try crypto.decrypt(jsonText: Array("\"AAAAAAAAAAAAAAAAAAAAAA==\"".utf8), policy: .passThrough)
        let status = try #require(failed.status)
        #expect(status.error == CryptoModule.decryptionFailed && status.original == "AAAAAAAAAAAAAAAAAAAAAA==")
        // Every field, changed on a copy: the original keeps its value, the copy differs until set back.
        var copy = status
        copy.line = 7
        copy.index = 3
        copy.channel = "demo"
        copy.timetoken = "17000000000000005"
        copy.original = nil
        copy.error = PNCryptError(.notEncrypted, "not encrypted")
        #expect(status.line == nil && status.index == nil && status.channel == nil && status.timetoken == nil)
        #expect(status.original == "AAAAAAAAAAAAAAAAAAAAAA==" && status.error == CryptoModule.decryptionFailed)
        #expect(copy.line == 7 && copy.index == 3 && copy.channel == "demo" && copy.error.code == .notEncrypted)
        #expect(copy != status && failed.status == status)
        // Equal statuses in different boxes: equal, the same hash; one field apart: not equal.
        let twin = MessageStatus(error: CryptoModule.decryptionFailed, original: "AAAAAAAAAAAAAAAAAAAAAA==")
        #expect(twin == status && twin.hashValue == status.hashValue)
        for change in [{ (s: inout MessageStatus) in s.line = 1 }, { $0.index = 0 }, { $0.channel = "" },
                       { $0.timetoken = 0 }, { $0.original = nil }, { $0.error = PNCryptError(.notBase64, "x") }] {
            var other = twin
            change(&other)
            #expect(other != twin && twin == status)
        }
        // A message that decrypted has no status, and equal messages are equal with or without one set back.
        var opened = try crypto.decrypt(jsonText: try crypto.publishBody(Self.message), policy: .marker)
        #expect(opened.status == nil)
        let before = opened
        opened.status = status
        #expect(opened != before)
        opened.status = nil
        #expect(opened == before && opened.hashValue == before.hashValue)
    }

    @Test("three keys read headerless data both ways (six readings): the third key's message is found, once")
    func sixReadings() throws {
        let ring = MessageCrypto(keys: try KeyRing(["first", "second", "third"]))
        let body = try MessageCrypto(cipherKey: "third", scheme: .legacyRandomIV).publishBody(Self.message)
        let opened = try ring.decrypt(jsonText: body, policy: .marker)
        #expect(opened.status == nil)
        #expect(opened.message == Self.message)
        #expect(opened.keyIndex == 2)
        #expect(opened.scheme == .legacyRandomIV)
        // The same through the String path (a parsed JSON string) and with no key that fits.
        #expect(ring.decrypt(try JSONValue(parsing: body), policy: .marker).keyIndex == 2)
        let other = try MessageCrypto(cipherKey: "fourth", scheme: .legacyRandomIV).publishBody(Self.message)
        #expect(try ring.decrypt(jsonText: other, policy: .marker).status?.error == CryptoModule.decryptionFailed)
    }

    @Test("the constant-time UTF-8 check agrees with String(validating:) at every position of a word and its tail")
    func utf8AtWordBoundaries() {
        let pieces: [[UInt8]] = [[0x41], [0xC3, 0xA9], [0xE6, 0xBC, 0xA2], [0xF0, 0x9F, 0x98, 0x80]]
        let bad: [[UInt8]] = [[0xFF], [0x80], [0xC3], [0xE6, 0xBC], [0xF0, 0x9F, 0x98], [0xED, 0xA0, 0x80],
                              [0xC0, 0x80], [0xF4, 0x90, 0x80, 0x80]]
        for length in 0...40 {
            for piece in pieces {
                for insert in bad + [piece] {
                    for position in stride(from: 0, through: length, by: 3) {
                        let bytes = Array([UInt8](repeating: 0x61, count: position) + insert
                                          + [UInt8](repeating: 0x62, count: length - position) + piece)
                        let expected = String(validating: bytes, as: UTF8.self) != nil
                        #expect(bytes.withUnsafeBytes { Decision.isValidUTF8InFull($0) } == expected, "\(bytes)")
                    }
                }
            }
        }
    }
}
