import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

@Suite struct KeyRingTests {
    @Test("tries keys in order and says which one worked")
    func rotation() throws {
        let old = try CryptoModule(cipherKey: "old")
        let new = try CryptoModule(cipherKey: "new")
        let ring = try KeyRing(["new", "old"])
        // A fixed IV: with a random one, "new" would pass the padding check too about once in 256 runs (ambiguous).
        let fromOld = try ring.decrypt(try old.encryptBinary([UInt8]("hello"), iv: Array(0..<16)))
        #expect(fromOld.keyIndex == 1)
        #expect(fromOld.scheme == .acrh)
        #expect(fromOld.plaintext == [UInt8]("hello"))
        let fromNew = try ring.decrypt(try new.encryptBinary([UInt8]("hello"), scheme: .legacy))
        #expect(fromNew.keyIndex == 0)
        #expect(fromNew.scheme == .legacy)
    }

    @Test("reports the first key's error when none works")
    func noneWorks() throws {
        let data = try CryptoModule(cipherKey: "third").encryptBinary([UInt8]("hello"), scheme: .legacy)
        let error = expectPNError { () throws(PNCryptError) in try KeyRing(["a", "b"]).decrypt(data) }
        #expect(error?.code == .wrongKeyOrCorrupt)
        #expect(error?.message == CryptoModule.decryptionFailed.message)
        let single = expectPNError { () throws(PNCryptError) in try KeyRing(["a"]).decrypt(data) }
        #expect(single?.message == CryptoModule.decryptionFailed.message)
        #expect(expectPNError { () throws(PNCryptError) in try KeyRing([String]()) }?.code == .invalidKey)
    }

    @Test("a wrong key whose garbage passes the padding check is never taken: ambiguous as bytes, skipped as text")
    func utf8() throws {
        // Find a message that the wrong key "decrypts" with valid padding: about one in 256.
        let right = try CryptoModule(cipherKey: "right")
        let wrong = try CryptoModule(cipherKey: "wrong")
        var found: [UInt8]?
        for i in 0..<5000 {
            let data = try right.encryptBinary([UInt8]("message number \(i)"), scheme: .legacy)
            if let garbage = try? wrong.decryptBinary(data, reading: .only(.legacy)),
               String(validating: garbage, as: UTF8.self) == nil {
                found = data
                break
            }
        }
        let data = try #require(found)
        let ring = try KeyRing(["wrong", "right"])
        #expect(expectPNError { () throws(PNCryptError) in
            try ring.decrypt(data, reading: .only(.legacy))
        }?.code == .ambiguous)
        let checked = try ring.decrypt(data, reading: .only(.legacy), content: .text)
        #expect(checked.keyIndex == 1)
        #expect(String(decoding: checked.plaintext, as: UTF8.self).hasPrefix("message number"))
    }

    @Test("the core asks whether a plaintext is a message only through the check its caller passes")
    func messageCheckIsTheCallers() throws {
        let ring = try KeyRing(["enigma"])
        let text = Array(#"{"a":1}"#.utf8)
        let sealed = try CryptoModule(key: ring.keys[0]).encryptBinary(text, scheme: .legacy)
        var asked: [[UInt8]] = []
        let taken = try ring.decrypt(sealed, reading: .only(.legacy), content: .message, check: { plaintext, _ in
            asked.append(Array(plaintext))
            return true
        })
        #expect(taken.plaintext == text)
        #expect(asked == [text])
        // The same message, refused by the check: the one failure, whatever else held.
        let refused = expectPNError { () throws(PNCryptError) in
            try ring.decrypt(sealed, reading: .only(.legacy), content: .message, check: { _, _ in false })
        }
        #expect(refused == PNCryptError.decryptionFailed)
        #expect(CryptoModule.decryptionFailed == PNCryptError.decryptionFailed)
        // Bytes ask nothing.
        #expect(try ring.decrypt(sealed, reading: .only(.legacy)).plaintext == text)
    }
}
