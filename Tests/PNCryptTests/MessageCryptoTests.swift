import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptVectors
import PNCryptTestSupport

@Suite struct MessageCryptoTests {
    /// docs/formats.md section 7 legacy vectors whose plaintext is a message: the JSON text an SDK encrypted.
    static func legacySpecVectors() throws -> [TestVector] {
        try Package.vectors("spec.json", as: TestVector.self)
            .filter { $0.scheme == "legacy" && $0.key == "enigma" && $0.expect == .ok }
    }

    @Test("every spec.json legacy vector whose plaintext is JSON decrypts as a received message; the others fail")
    func specVectorsDecrypt() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", reading: .only(.legacy))
        let vectors = try Self.legacySpecVectors()
        #expect(vectors.count >= 10)
        for v in vectors {
            let plaintext = try #require(v.plaintext)
            let received = JSONValue.string(try #require(v.ciphertext))
            let result = crypto.decrypt(received, policy: .marker)
            // A message qualifies only when its plaintext is JSON text (the one decision procedure): `yay!`, bytes
            // encrypted without JSON, is the one public failure as a message (it decrypts as text).
            guard let expected = try? JSONValue(parsing: plaintext) else {
                #expect(result.status?.error == CryptoModule.decryptionFailed, "\(v.id)")
                continue
            }
            #expect(result.status == nil, "\(v.id)")
            #expect(result.message == expected, "\(v.id)")
        }
    }

    @Test("publishing reproduces spec.json's ciphertexts in the style that wrote them")
    func specVectorsEncrypt() throws {
        for v in try Self.legacySpecVectors() {
            let plaintext = try #require(v.plaintext)
            guard let message = try? JSONValue(parsing: plaintext) else { continue }
            // Go and C# escape non-ASCII before encrypting (`"\u6f22\u8a9e"`); the others are compact.
            let style: JSONStyle = plaintext.contains("\\u") ? .ascii : .compact
            let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy, style: style)
            let wire = try crypto.encrypt(message)
            #expect(wire == .string(try #require(v.ciphertext)), "\(v.id)")
            #expect(try crypto.encrypt(jsonText: Array(plaintext.utf8)) == wire)
        }
        let hello = try MessageCrypto(cipherKey: "enigma", scheme: .legacy)
        let helloVector = try Package.specVector("spec-legacy-hello-world")
        #expect(helloVector.plaintext == #""Hello World""#)
        #expect(String(decoding: try hello.publishBody("Hello World"), as: UTF8.self)
                == "\"\(try #require(helloVector.ciphertext))\"")
    }

    @Test("round-trips messages in every scheme and exact style (SDKStyleTests: the SDK styles)")
    func roundTrip() throws {
        let message: JSONValue = ["text": "héllo 漢語 😀 \"quoted\" / \n",
            "tt": .number(JSONNumber(literal: "13406746729185766")!),
                                  "list": [1, 2.5, true, nil, ["nested": []]]]
        for scheme in [Scheme.legacy, .legacyRandomIV, .acrh] {
            for style in JSONStyle.exactStyles {
                let crypto = try MessageCrypto(cipherKey: "ключ", scheme: scheme, reading: .only(scheme),
                                               style: style)
                let result = crypto.decrypt(try crypto.encrypt(message), policy: .marker)
                #expect(result.status == nil)
                #expect(result.message == message, "\(scheme) \(style)")
                #expect(result.scheme == scheme)
            }
        }
    }

    @Test("acrh publishes one message with a fresh IV each time (across the IV reserve's refills), each decrypting")
    func acrhFreshIVs() throws {
        let message: JSONValue = ["text": "hello", "n": 42]
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .acrh, reading: .only(.acrh))
        let plaintext = message.serialized()
        var ivs = Set<[UInt8]>()
        for _ in 0..<300 {
            let body = try crypto.publishBody(message)
            #expect(body.first == UInt8(ascii: "\"") && body.last == UInt8(ascii: "\""))
            let sealed = try Base64.decode(body)
            #expect(sealed.count == CryptorHeader.acrhLength + (plaintext.count / 16 + 1) * 16)
            #expect(Array(sealed.prefix(CryptorHeader.acrhStart.count)) == CryptorHeader.acrhStart)
            ivs.insert(Array(sealed[CryptorHeader.acrhStart.count..<CryptorHeader.acrhLength]))
            let received = crypto.decrypt(.string(String(decoding: body.dropFirst().dropLast(), as: UTF8.self)),
                                          policy: .marker)
            #expect(received.status == nil && received.message == message)
        }
        #expect(ivs.count == 300)
    }

    @Test("auto-detection reads headers and falls back to legacy")
    func autoRead() throws {
        let writer = try MessageCrypto(cipherKey: "k", scheme: .acrh)
        let reader = try MessageCrypto(cipherKey: "k")
        #expect(reader.decrypt(try writer.encrypt("x"), policy: .marker).message == "x")
        let legacy = try MessageCrypto(cipherKey: "k", scheme: .legacy)
        #expect(reader.decrypt(try legacy.encrypt("y"), policy: .marker).message == "y")
    }

    @Test("the Base64 in a received string may carry its own quotes")
    func quotedBase64() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma")
        let result = crypto.decrypt("\"06UDjczkvAAYcqWfNwkOiQ==\"", policy: .marker)
        #expect(result.message == "Hello World")
    }

    @Test("a wrong key gives DECRYPTION_ERROR under marker and the original under passthrough, each with a status")
    func policies() throws {
        let crypto = try MessageCrypto(cipherKey: "wrong")
        let received: JSONValue = "06UDjczkvAAYcqWfNwkOiQ=="
        let marked = crypto.decrypt(received, policy: .marker)
        #expect(marked.message == "DECRYPTION_ERROR")
        #expect(marked.status?.reason == .wrongKeyOrCorrupt)
        #expect(marked.status?.original == received)
        let kept = crypto.decrypt(received, policy: .passThrough)
        #expect(kept.message == received)
        #expect(kept.status?.reason == .wrongKeyOrCorrupt)
        #expect(kept.status?.json.serializedString()
            .hasPrefix(#"{"category":"decryption","reason":"wrongKeyOrCorrupt""#) == true)
    }

    @Test("each failure has its reason", arguments: [
        ("\"not base64!\"", "notBase64"),
        ("\"UE5FRAFBQ1JC\"", "malformedHeader"),
        ("\"UE5FRAJBQ1JIEAAAAAAAAAAAAAAAAAAAAAA=\"", "unknownCryptor"),
        ("\"AAAAAAAAAAAAAAAAAAAAAA==\"", "wrongKeyOrCorrupt"),
        ("42", "notEncrypted"),
        ("{\"a\":1}", "notEncrypted"),
    ])
    func reasons(input: String, reason: String) throws {
        let crypto = try MessageCrypto(cipherKey: "enigma")
        let result = try crypto.decrypt(jsonText: Array(input.utf8), policy: .marker)
        #expect(result.status?.reason.name == reason, "\(result.status?.error.message ?? "no status")")
        #expect(result.message == "DECRYPTION_ERROR")
    }

    @Test("plaintext that is not UTF-8 is a decryption error (iOS 3.4)")
    func invalidUTF8() throws {
        let bytes = try CryptoModule(cipherKey: "enigma").encrypt([0xFF, 0xFE, 0x41], scheme: .legacy)
        let result = try MessageCrypto(cipherKey: "enigma", reading: .only(.legacy)).decrypt(.string(bytes),
            policy: .marker)
        #expect(result.status?.reason == .wrongKeyOrCorrupt)
        #expect(result.status?.error == CryptoModule.decryptionFailed)
    }

    @Test("non-string messages pass through under passthrough, as they were, with a notEncrypted status (issue 55)")
    func nonStringPassThrough() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma")
        for message: JSONValue in [["cmd": "transfer"], 42, true, .null, [1, 2]] {
            let result = crypto.decrypt(message, policy: .passThrough)
            #expect(result.message == message)
            #expect(result.status?.reason == .notEncrypted, "\(message)")
            #expect(result.status?.original == message)
            #expect(result.keyIndex == nil && result.scheme == nil)
            let text = try crypto.decrypt(jsonText: message.serialized(), policy: .passThrough)
            #expect(text == result)
        }
    }

    @Test("Encodable values publish through the Codable bridge")
    func codable() throws {
        struct Order: Codable, Equatable { var item: String; var count: Int64 }
        let crypto = try MessageCrypto(cipherKey: "k", scheme: .acrh)
        let wire = try crypto.encrypt(Order(item: "tea", count: 13406746729185766))
        let back = crypto.decrypt(wire, policy: .marker)
        #expect(try JSONValueDecoder().decode(Order.self, from: back.message) == Order(item: "tea",
            count: 13406746729185766))
    }

    @Test("invalid JSON input names the offset")
    func invalidJSON() throws {
        let crypto = try MessageCrypto(cipherKey: "k")
        let error = expectPNError { () throws(PNCryptError) in try crypto.decrypt(jsonText: Array("[1,".utf8),
            policy: .marker) }
        #expect(error?.code == .invalidJSON)
        #expect(error?.offset == 3)
    }
}
