import Testing
import PNCryptJSON
import PNCrypt
import PNCryptTestSupport

/// Messages read with a list of readings (`--scheme auto,legacy33`): iOS 3.3's string leaves beside today's whole
/// messages, with the one decision over every reading of the list.
@Suite struct ReadListMessageTests {
    static func crypto() throws -> MessageCrypto {
        try MessageCrypto(cipherKey: "enigma", reading: try ReadPolicy(naming: "auto,legacy33"))
    }

    @Test("iOS 3.3 messages (a leaf, an array, an object) and today's read in one pass, through every front")
    func mixed() throws {
        let crypto = try Self.crypto()
        let ios33 = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        let modern = try MessageCrypto(cipherKey: "enigma")
        let legacy = try MessageCrypto(cipherKey: "enigma", scheme: .legacy)
        let cases: [(JSONValue, JSONValue, Scheme)] = [
            (try ios33.encrypt("Hello World"), "Hello World", .legacy33),
            (try ios33.encrypt(["seven", ["food": "Cheeseburger"]]), ["seven", ["food": "Cheeseburger"]], .legacy33),
            (try ios33.encrypt("42"), "42", .legacy33),
            (try modern.encrypt(["text": "hi", "n": 42]), ["text": "hi", "n": 42], .acrh),
            (try legacy.encrypt("Hello World"), "Hello World", .legacy),
        ]
        for (wire, message, scheme) in cases {
            let back = crypto.decrypt(wire, policy: .marker)
            #expect(back.status == nil, "\(wire)")
            #expect(back.message == message)
            #expect(back.scheme == scheme)
            let text = try crypto.decrypt(jsonText: wire.serialized(style: .compact), policy: .marker)
            #expect(text.message == message && text.status == nil)
            // Today's messages alone under legacy33 still fail as before; iOS 3.3's under auto.
            let other = scheme == .legacy33 ? modern : ios33
            #expect(other.decrypt(wire, policy: .marker).status != nil)
        }
    }

    @Test("a string both a legacy reading (JSON) and legacy33 (UTF-8) qualify for is the one failure")
    func ambiguousMessage() throws {
        // Under legacy with enigma the plaintext is 30643283711 (JSON); under legacy33 15 bytes of UTF-8.
        let wire: JSONValue = "DcKD1fpHi3rSu3L+8qhjWQ=="
        let auto = try MessageCrypto(cipherKey: "enigma")
        #expect(auto.decrypt(wire, policy: .marker).message == 30643283711)
        let ios33 = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        #expect(ios33.decrypt(wire, policy: .marker).status == nil)
        let crypto = try Self.crypto()
        let back = crypto.decrypt(wire, policy: .marker)
        #expect(back.status?.error == CryptoModule.decryptionFailed)
        #expect(back.message == .string(DecryptionPolicy.markerText))
        let text = try crypto.decrypt(jsonText: Array(#""DcKD1fpHi3rSu3L+8qhjWQ==""#.utf8), policy: .passThrough)
        #expect(text.status?.error == CryptoModule.decryptionFailed)
        #expect(text.message == wire)
    }
}
