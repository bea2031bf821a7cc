import Testing
import PNCrypt
import PNCryptVectors
import PNCryptTestSupport

/// Issue 47, item 4: Swift's first call, `CryptoModule.decrypt(_:)` with no arguments, reads text by the text rule
/// (as the CLI's `decrypt`, C's `pncrypt_decrypt_text` and Python's `decrypt()`); bytes are the explicit
/// `decryptBytes(_:)`. Checked on what the real PubNub Python SDK wrote (Vectors/python-sdk.json).
@Suite struct TextDefaultTests {
    static let sdk: [TestVector] = (try? Package.vectors("python-sdk.json", as: TestVector.self)) ?? []

    @Test("the SDK's fixed-IV, random-IV and acrh texts decrypt with no arguments, as text")
    func sdkTextsDecryptWithNoArguments() throws {
        var schemes: [String: Int] = [:]
        for vector in Self.sdk {
            guard let plaintext = vector.plaintext, let ciphertext = vector.ciphertext else { continue }
            let module = try CryptoModule(cipherKey: vector.key)
            #expect(try module.decrypt(ciphertext) == plaintext, "\(vector.id)")
            schemes[vector.scheme, default: 0] += 1
        }
        // Every scheme the SDK writes is there, each more than a handful of times (the random-IV ones are what
        // the bytes rule calls ambiguous).
        #expect(schemes.keys.sorted() == ["acrh", "legacy", "legacy-random-iv"])
        #expect(schemes.values.allSatisfy { $0 >= 20 }, "\(schemes)")
    }

    @Test("a binary plaintext is the one decryption failure as text, the same as a wrong key; decryptBytes reads it")
    func binaryPlaintextNeedsDecryptBytes() throws {
        let module = try CryptoModule(cipherKey: "enigma")
        let binary = (0..<256).map { UInt8($0) }
        let sealed = try module.encrypt(binary)
        #expect(throws: PNCryptError.decryptionFailed) { try module.decrypt(sealed) }
        #expect(throws: PNCryptError.decryptionFailed) { try CryptoModule(cipherKey: "wrong").decrypt(sealed) }
        #expect(try module.decryptBytes(sealed) == binary)
        // The SDK's binary acrh plaintexts (files): text refuses each one, bytes read it. (Headerless binary data
        // has a second reading, the random-IV one from its second block, which is text when that tail is UTF-8:
        // nothing in the bytes tells a fixed-IV binary from a random-IV text; name the scheme for such data.)
        var binaries = 0
        for vector in Self.sdk where vector.plaintext == nil && vector.scheme == Scheme.acrh.rawValue {
            guard let ciphertext = vector.ciphertext, let bytes = try vector.plaintextBytes(),
                  String(validating: bytes, as: UTF8.self) == nil,
                  let scheme = Scheme(rawValue: vector.scheme) else { continue }
            let sdkModule = try CryptoModule(cipherKey: vector.key)
            #expect(throws: PNCryptError.decryptionFailed, "\(vector.id)") { try sdkModule.decrypt(ciphertext) }
            #expect(try sdkModule.decryptBytes(ciphertext, reading: .only(scheme)) == bytes, "\(vector.id)")
            binaries += 1
        }
        #expect(binaries > 0)
    }
}
