import Testing
import PNCryptCore
import PNCrypt
import PNCryptVectors
import PNCryptTestSupport

@Suite struct DiagnosisTests {
    func diagnose(_ text: String, _ keys: [String]) throws -> Diagnosis {
        Diagnosis(text: Array(text.utf8), keys: try keys.map { try CipherKey($0) })
    }

    @Test("names the key and scheme, and who shows DECRYPTION_ERROR")
    func randomIVWithSecondKey() throws {
        let d = try diagnose(try Package.specCiphertext("spec-legacy-random-iv-yay"), ["new", "enigma"])
        #expect(d.findings == [
            "decrypts with legacy-random-iv and key #2; "
                + "a client set to a static IV (legacy) shows DECRYPTION_ERROR for it",
            "key #2 is not the first key: the sender still uses an older or different key",
            "the plaintext (4 bytes) is UTF-8 but not JSON: give --plaintext text if the publisher encrypted a raw"
                + " string (Python, Spark: plaintext=\"text\"; C: pncrypt_module_set_plaintext); clients deliver"
                + " it as a plain string, a message must be JSON text by default",
        ])
        #expect(d.decrypts && !d.isAmbiguous)
    }

    @Test("an iOS 3.3 string leaf is raw text by design: no --plaintext text advice for it")
    func legacy33Leaf() throws {
        let crypto = try MessageCrypto(cipherKey: "k", scheme: .legacy33)
        let wire = String(decoding: try crypto.encrypt(JSONValue.string("hello")).serialized(), as: UTF8.self)
        let d = try diagnose(String(wire.dropFirst().dropLast()), ["k"])
        #expect(d.findings.contains("the plaintext (5 bytes) is UTF-8 but not JSON: an iOS 3.3 string leaf, read as"
                                    + " text"), "\(d.findings)")
        #expect(!d.findings.contains { $0.contains("--plaintext text") }, "\(d.findings)")
    }

    @Test("an unknown cryptor cannot be decrypted by any key")
    func unknownCryptor() throws {
        let d = try diagnose("UE5FRAFBQ1JCEAAAAAAAAAAAAAAAAAAAAABbjKTFb0xLzByXntZkq2G7lHIGg5ZdQd73GwVG6o3ftw==",
            ["enigma"])
        #expect(d.findings == ["no key and scheme decrypt this: it has a PNED header with unknown cryptor 'ACRB'"])
        #expect(d.attempts.isEmpty)
    }

    @Test("not Base64, with the offset")
    func notBase64() throws {
        let d = try diagnose("q/xJqqN6qbiZ-XYmiQC1Fw==", ["enigma"])
        #expect(d.findings == ["not Base64 at offset 12: unexpected character '-' (URL-safe Base64 is not accepted)"])
        #expect(d.inputError?.code == .notBase64)
    }

    @Test("legacy data no key reads")
    func wrongKey() throws {
        let d = try diagnose("A3Q8UJ2N/QmCI3x6qDcEwZZbfvNki7Ai7NWUiJiivR9YG+JSaIpFUT5dFY3AJVr5", ["wrong"])
        #expect(d.findings.first == "legacy data of 3 blocks: wrong key or corrupted")
        #expect(!d.decrypts)
        #expect(d.attempts.map(\.scheme) == [.legacy, .legacyRandomIV, .legacy33])
    }

    @Test("says so when more than one scheme gives valid plaintext, and which is most likely")
    func ambiguity() throws {
        // Legacy data of two or more blocks: read as legacy-random-iv, the first block becomes the IV and the
        // rest decrypts to the true plaintext minus its first 16 bytes.
        let d = try diagnose(try Package.specCiphertext("spec-legacy-foo-bar"), ["enigma"])
        #expect(d.isAmbiguous)
        #expect(d.findings == [
            "ambiguous: 2 key and scheme combinations give valid plaintext",
            "most likely legacy with key #1, the only reading that is JSON as messages are; "
                // Not DECRYPTION_ERROR: the random-IV reading is valid text too (saying so would contradict the
                // ambiguity reported above).
                + "a client set to a random IV (legacy-random-iv) shows other text for it (8 bytes read with key #1),"
                + " without DECRYPTION_ERROR",
            "every serializer but the Python SDK writes these bytes: they hardly tell which SDK sent the message",
            "- legacy with key #1: the plaintext (24 bytes) is JSON: an object",
            "- legacy-random-iv with key #1: the plaintext (8 bytes) is UTF-8 but not JSON",
            "legacy and legacy-random-iv differ only in the first block: read with the other scheme, "
                + "a message loses its first 16 bytes or gains 16 bytes of garbage",
            "the headerless rule reads it as legacy (what pncrypt decrypt gives without --scheme): the fixed-IV"
                + " reading is one JSON text and the other is not",
        ])
    }

    @Test("a header cut short and a wrong acrh key")
    func acrhCases() throws {
        #expect(try diagnose("UE5FRAFBQ1J", ["k"]).findings.first?.hasPrefix("not Base64 at offset 11") == true)
        let cut = try diagnose(Base64.encode([UInt8]("PNED\u{1}ACRH")), ["k"])
        #expect(cut.findings.first?.hasPrefix(
            "no key and scheme decrypt this: it starts with a PNED header that is malformed") == true)
        let wrong = try diagnose(try Package.specCiphertext("spec-acrh-mycipherkey-zero-iv"), ["x"])
        #expect(wrong.findings.first == "acrh data (PNED header, cryptor ACRH) of 2 blocks: wrong key or corrupted")
    }

    @Test("JSON output carries the same findings")
    func json() throws {
        let d = try diagnose(try Package.specCiphertext("spec-legacy-quoted-yay"), ["enigma"])
        let json = d.json
        #expect(json["decrypts"] == true)
        #expect(json["findings"]?[0] == .string(d.findings[0]))
        #expect(json["attempts"]?[0]?["plaintext"] == "\"yay!\"")
    }

    @Test("gives a sensible answer for every vector of spec.json")
    func specVectors() throws {
        for v in try Package.vectors("spec.json", as: TestVector.self) where v.expect == .ok {
            let d = try diagnose(v.ciphertext!, [v.key])
            let plaintext = try v.plaintextBytes()
            let scheme = v.scheme == "auto" ? nil : Scheme(rawValue: v.scheme)
            let found = d.matches.contains { ($0.scheme == scheme || scheme == nil) && $0.plaintext == plaintext }
            #expect(found, "\(v.id): \(d.findings)")
            #expect(d.findings.first?.hasPrefix("decrypts with") == true || d.isAmbiguous, "\(v.id): \(d.findings)")
        }
    }

    @Test("gives a sensible answer for every negative vector")
    func negativeVectors() throws {
        var checked = 0
        for v in try Package.vectors("negative.json", as: TestVector.self) where v.ciphertext != nil {
            let d = try diagnose(v.ciphertext!, [v.key])
            #expect(!d.findings.isEmpty, "\(v.id)")
            if v.expect == .unknownCryptor && v.scheme == "auto" {
                #expect(!d.decrypts, "\(v.id): \(d.findings)")
            }
            // A headerless input that fails under an explicit legacy scheme must not be reported as decrypting with it.
            let data = (try? Base64.decode(v.ciphertext!)) ?? []
            if let scheme = Scheme(rawValue: v.scheme), scheme != .acrh, v.expect != .ok,
               !data.starts(with: CryptorHeader.sentinel) {
                #expect(!d.matches.contains { $0.scheme == scheme }, "\(v.id): \(d.findings)")
                checked += 1
            }
        }
        #expect(checked >= 20)
    }
}
