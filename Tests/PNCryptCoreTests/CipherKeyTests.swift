import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

@Suite struct CipherKeyTests {
    @Test("derives the docs/formats.md section 1 keys of 'enigma'")
    func enigma() throws {
        let key = try CipherKey("enigma")
        #expect(key.keyBytes(for: .legacy) == [UInt8]("67a4f45f0d1d9bc606486fc42dc49416"))
        #expect(key.keyBytes(for: .legacyRandomIV) == key.keyBytes(for: .legacy))
        #expect(Hex.encode(key.keyBytes(for: .legacy33)) == "90954349a0e42d8e4426a4672bde16b9")
        // The acrh key is the whole raw SHA-256; its hex starts with the legacy key's characters.
        #expect(key.keyBytes(for: .acrh).count == 32)
        #expect(Hex.encode(key.keyBytes(for: .acrh)).hasPrefix("67a4f45f0d1d9bc606486fc42dc49416"))
    }

    @Test("uses the key's UTF-8 bytes")
    func nonASCII() throws {
        // SHA-256("ключ") is 1de36a32af798da0...: computed independently with `printf 'ключ' | sha256sum`.
        let key = try CipherKey("ключ")
        let (same, other) = (try CipherKey("ключ"), try CipherKey("ключи"))
        #expect(key.isSame(as: same) && !key.isSame(as: other))
        #expect(key.keyBytes(for: .legacy).count == 32)
        #expect(key.keyBytes(for: .legacy) == [UInt8]("1de36a32af798da0c1ac9297603a320e"))
        #expect(Hex.encode(key.keyBytes(for: .acrh))
                == "1de36a32af798da0c1ac9297603a320ed8fe567cf21c9177112a4ce914ebb8be")
        #expect(key.keyBytes(for: .legacy) != (try CipherKey("kljuch")).keyBytes(for: .legacy))
    }

    @Test("refuses an empty key")
    func empty() {
        let error = expectPNError { () throws(PNCryptError) in try CipherKey("") }
        #expect(error?.code == .invalidKey)
        #expect(error?.category == .invalidArgument)
    }
}
