import Testing
@testable import PNCrypt

/// The default legacy scheme is stated once (`Scheme.fileDefaultLegacy`, `Scheme.moduleDefaultLegacy`), and the
/// readers that take a default read as those constants say.
@Suite struct LegacyDefaultTests {
    @Test("the stated defaults: files read as legacy-random-iv, a CryptoModule as legacy")
    func statedDefaults() throws {
        #expect(Scheme.fileDefaultLegacy == .legacyRandomIV)
        #expect(Scheme.moduleDefaultLegacy == .legacy)
        #expect(try CryptoModule(cipherKey: "enigma").legacyScheme == Scheme.moduleDefaultLegacy)
    }

    @Test("a stream decryptor told nothing reads headerless data as fileDefaultLegacy")
    func streamDefault() throws {
        let key = try CipherKey("enigma")
        let plaintext = Array("forty-eight bytes of plaintext, three AES blocks".utf8)
        for scheme in [Scheme.legacy, .legacyRandomIV] {
            let encryptor = try StreamEncryptor(key: key, scheme: scheme)
            let sealed = try encryptor.update(plaintext) + encryptor.finish()
            let told = try StreamDecryptor(key: key, legacyScheme: Scheme.fileDefaultLegacy)
            let untold = try StreamDecryptor(key: key)
            let expected = Result { () throws(PNCryptError) in try told.update(sealed) + told.finish() }
            let got = Result { () throws(PNCryptError) in try untold.update(sealed) + untold.finish() }
            #expect(got == expected, "\(scheme)")
            if scheme == .fileDefaultLegacy { #expect(try got.get() == plaintext) }
        }
    }
}
