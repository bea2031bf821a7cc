import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptVectors
import PNCryptTestSupport

@Suite struct MessageKeyRotationTests {
    @Test("received messages are tried with every key, newest first")
    func keyRing() throws {
        let old = try MessageCrypto(cipherKey: "old", scheme: .acrh)
        let both = MessageCrypto(keys: try KeyRing(["new", "old"]))
        let result = both.decrypt(try old.encrypt(["n": 1]), policy: .marker)
        #expect(result.message == ["n": 1])
        #expect(result.keyIndex == 1)
        #expect(result.scheme == .acrh)
        let none = MessageCrypto(keys: try KeyRing(["a", "b"])).decrypt(try old.encrypt("x"), policy: .passThrough)
        #expect(none.status?.error == CryptoModule.decryptionFailed)
    }
}
