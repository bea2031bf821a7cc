import Testing
import PNCryptJSON
import PNCrypt
import PNCryptVectors
import PNCryptTestSupport

@Suite struct Legacy33MessageTests {
    @Test("reproduces spec.json's iOS 3.3 message exactly")
    func specExample() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        let message = try JSONValue(parsing: #"["seven","eight",{"food":"Cheeseburger","drink":"Coffee"}]"#)
        let wire = try crypto.encrypt(message)
        // Each leaf's ciphertext is a spec.json vector.
        func leaf(_ id: String) throws -> JSONValue {
            let vector = try Package.specVector(id)
            return .string(try #require(vector.ciphertext))
        }
        let expected: JSONValue = [try leaf("spec-legacy33-seven"), try leaf("spec-legacy33-eight"),
                                   ["food": try leaf("spec-legacy33-cheeseburger"),
                                    "drink": try leaf("spec-legacy33-coffee")]]
        #expect(wire == expected)
        #expect(wire.serializedString() == expected.serializedString())
        let back = crypto.decrypt(wire, policy: .marker)
        #expect(back.status == nil)
        #expect(back.message == message)
    }

    @Test("every spec.json legacy33 vector is a string leaf, decrypted without JSON parsing")
    func specLeaves() throws {
        let vectors = try Package.vectors("spec.json", as: TestVector.self).filter { $0.scheme == "legacy33" }
        #expect(vectors.count == 7)
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        for v in vectors {
            let text = try #require(v.plaintext)
            #expect(try crypto.encrypt(.string(text)) == .string(try #require(v.ciphertext)))
            #expect(crypto.decrypt(.string(v.ciphertext!), policy: .marker).message == .string(text))
        }
        // A leaf whose plaintext looks like JSON stays a string.
        let numberText = try crypto.encrypt("42")
        #expect(crypto.decrypt(numberText, policy: .marker).message == "42")
    }

    @Test("refuses non-string leaves, naming the path")
    func nonStringLeaf() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        let cases: [(JSONValue, String)] = [
            (["a", "b", ["price": 3]], "$[2].price is a number"),
            (["ok": [true]], "$.ok[0] is a boolean"),
            (["two words": nil], #"$["two words"] is null"#),
            (7, "$ is a number"),
        ]
        for (message, words) in cases {
            let error = expectPNError { () throws(PNCryptError) in try crypto.encrypt(message) }
            #expect(error?.code == .notEncryptable)
            #expect(error?.category == .encryption)
            #expect(error?.message.hasSuffix(words) == true, "\(error?.message ?? "")")
        }
    }

    @Test("a leaf that fails to decrypt fails the message, naming the path")
    func leafFailure() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        let result = crypto.decrypt(["0ZRaiDryY0rdklgVVU80pQ==", ["x": "AAAAAAAAAAAAAAAAAAAAAA=="]], policy: .marker)
        #expect(result.message == "DECRYPTION_ERROR")
        #expect(result.status?.error.message.hasPrefix("at $[1].x: ") == true)
    }

    /// Messages with no string leaf: nothing in them is ciphertext and no key was checked.
    static let empties = messagesWithNoStringLeaf

    @Test("a message with no string leaf is not encrypted, under every policy",
          arguments: Self.empties)
    func nothingEncrypted(text: String) throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        for policy in DecryptionPolicy.allCases {
            let result = try crypto.decrypt(jsonText: Array(text.utf8), policy: policy)
            #expect(result.status?.error.code == .notEncrypted, "\(policy)")
            #expect(result.status?.error.message.contains("holds no string") == true)
            #expect(result.keyIndex == nil && result.scheme == nil)
            let original = try JSONValue(parsing: Array(text.utf8))
            #expect(result.message == (policy == .marker ? "DECRYPTION_ERROR" : original))
        }
        // Nor can one be sent: a receiver would read it as not encrypted.
        let sent = expectPNError { () throws(PNCryptError) in
            _ = try crypto.encrypt(try JSONValue(parsing: Array(text.utf8)))
        }
        #expect(sent?.code == .notEncryptable)
    }

    @Test("one string leaf anywhere is enough to decrypt a message with empty containers")
    func emptyContainersBesideALeaf() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        let message: JSONValue = ["a": [], "b": [[:], "seven"]]
        let result = crypto.decrypt(try crypto.encrypt(message), policy: .marker)
        #expect(result.status == nil)
        #expect(result.message == message)
    }
}
