import Testing
import PNCrypt
import PNCryptTestSupport

/// Whether a plaintext is a message (`isMessageText`): the messages layer's answer, which it passes to the core's
/// decision (`JSONCheck`) for every message and text it decrypts.
@Suite struct MessageTextTests {
    @Test("a message is one JSON text or PHP's raw string form")
    func whatIsAMessage() {
        let cases: [(String, Bool)] = [
            (#"{"a":1}"#, true), ("[1,2]", true), ("12", true), (#""text""#, true), (#""say "hi" raw""#, true),
            ("hello", false), ("{", false), ("\"", false), ("", false), (#"{"a":1} x"#, false),
        ]
        for (text, expected) in cases {
            #expect(Array(text.utf8).withUnsafeBytes { isMessageText($0) } == expected, "\(text)")
            #expect(Array(text.utf8).withUnsafeBytes { isMessageText($0, readable: $0.count) } == expected, "\(text)")
        }
    }

    @Test("the messages layer's KeyRing.decrypt asks its check: a message qualifies as one, other text does not")
    func keyRingAsksTheCheck() throws {
        let ring = try KeyRing(["enigma"])
        let module = CryptoModule(key: ring.keys[0])
        for text in [#"{"a":1}"#, #""say "hi" raw""#] {
            let sealed = try module.encryptBinary(Array(text.utf8), scheme: .legacy)
            #expect(try ring.decrypt(sealed, reading: .only(.legacy), content: .json).plaintext == Array(text.utf8))
        }
        let sealed = try module.encryptBinary(Array("hello world".utf8), scheme: .legacy)
        let refused = expectPNError { () throws(PNCryptError) in
            try ring.decrypt(sealed, reading: .only(.legacy), content: .json)
        }
        #expect(refused == CryptoModule.decryptionFailed)
        let text = try ring.decrypt(sealed, reading: .only(.legacy), content: .text)
        #expect(text.plaintext == Array("hello world".utf8))
    }
}
