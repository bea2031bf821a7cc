import Testing
import PNCrypt
import PNCryptJSON
import PNCryptTestSupport

/// Whether a plaintext is a message (`isMessageText`): the messages layer's answer, which it passes to the core's
/// decision (`ContentCheck`) for every message and text it decrypts.
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

    @Test("the pre-check refuses only what is not one JSON text, by its two ends, without parsing")
    func preCheckRefusesOnlyNonJSON() {
        let refused = ["nice day", "tru", "true story", "falsehood", "null,", "nul", "10:00 done", "42 is", "-x",
                       " \n trueX", "1.5e3 1", "neue Straße", "für euch", "2024年", "0x", "t", "hello", "", "  ",
                       "1.", "-", #""text":"message 1","ts":17}"#, #"","user":"u"}"#, #"{"a":1} x"#, "[1,2",
                       "\"", " \" ", #""a" 1"#, "{", "]", ":1}", "17000000000000100}"]
        let undecided = ["true", "false", "null", " null \r\n", "42", "-1.5e+3", "1.2.3", "--1", "{\"a\":1}",
                         "[1]", "\"s\"", "12 ", #""a","b""#, "{}}", "[1]]", " \"\" ", #"{"a":1}{"b":2}"#]
        for text in refused {
            #expect(Array(text.utf8).withUnsafeBytes { cannotBeJSONText($0) }, "\(text)")
            #expect(!Array(text.utf8).withUnsafeBytes { isJSONText($0) }, "\(text)")
        }
        for text in undecided {
            #expect(!Array(text.utf8).withUnsafeBytes { cannotBeJSONText($0) }, "\(text)")
        }
        // Never refuses a JSON text: every part of JSON texts and of cut words, checked by parsing.
        let samples = ["true", "false", "null", "-12.5e-3", "0", #"{"a":[true,null]}"#, " 7 ", "nothing here",
                       "tomorrow 10:00", "fünf", "123abc", "-", "1e", "n", "fa", #" "a\"b}" "#,
                       #"[{"k":"v]"},"x\\",[1e5]] "#, #"{"n":0,"text":"message 0 ünï","ts":17}"#]
        for sample in samples {
            let bytes = Array(sample.utf8)
            for start in 0...bytes.count {
                for end in start...bytes.count {
                    let part = Array(bytes[start..<end])
                    part.withUnsafeBytes { raw in
                        let parses = (try? JSONValue(parsing: part)) != nil
                        if cannotBeJSONText(raw) { #expect(!parses, "\(part)") }
                        #expect(isJSONText(raw) == parses, "\(part)")
                    }
                }
            }
        }
    }

    @Test("the messages layer's KeyRing.decrypt asks its check: a message qualifies as one, other text does not")
    func keyRingAsksTheCheck() throws {
        let ring = try KeyRing(["enigma"])
        let module = CryptoModule(key: ring.keys[0])
        for text in [#"{"a":1}"#, #""say "hi" raw""#] {
            let sealed = try module.encryptBinary(Array(text.utf8), scheme: .legacy)
            #expect(try ring.decrypt(sealed, reading: .only(.legacy), content: .message).plaintext == Array(text.utf8))
        }
        let sealed = try module.encryptBinary(Array("hello world".utf8), scheme: .legacy)
        let refused = expectPNError { () throws(PNCryptError) in
            try ring.decrypt(sealed, reading: .only(.legacy), content: .message)
        }
        #expect(refused == CryptoModule.decryptionFailed)
        let text = try ring.decrypt(sealed, reading: .only(.legacy), content: .text)
        #expect(text.plaintext == Array("hello world".utf8))
    }
}
