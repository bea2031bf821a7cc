import Testing
@testable import PNCrypt

/// The default legacy scheme is stated once (`Scheme.defaultForHeaderlessFiles`, `Scheme.defaultForModules`), and the
/// readers that take a default read as those constants say.
@Suite struct LegacyDefaultTests {
    @Test("the stated defaults: files read as legacy-random-iv, a CryptoModule as legacy")
    func statedDefaults() throws {
        #expect(Scheme.defaultForHeaderlessFiles == .legacyRandomIV)
        #expect(Scheme.defaultForModules == .legacy)
        #expect(try CryptoModule(cipherKey: "enigma").legacyScheme == Scheme.defaultForModules)
    }

    @Test("a stream decryptor told nothing reads headerless data as defaultForHeaderlessFiles")
    func streamDefault() throws {
        let key = try CipherKey("enigma")
        let plaintext = Array("forty-eight bytes of plaintext, three AES blocks".utf8)
        for scheme in [Scheme.legacy, .legacyRandomIV] {
            let encryptor = try StreamEncryptor(key: key, scheme: scheme)
            let sealed = try encryptor.update(plaintext) + encryptor.finish()
            let told = try StreamDecryptor(key: key, legacyScheme: Scheme.defaultForHeaderlessFiles)
            let untold = try StreamDecryptor(key: key)
            let expected = Result { () throws(PNCryptError) in try told.update(sealed) + told.finish() }
            let got = Result { () throws(PNCryptError) in try untold.update(sealed) + untold.finish() }
            #expect(got == expected, "\(scheme)")
            if scheme == .defaultForHeaderlessFiles { #expect(try got.get() == plaintext) }
        }
    }
}
