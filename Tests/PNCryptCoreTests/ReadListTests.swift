import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

/// Lists of readings (`ReadPolicy.anyOf`, `--scheme auto,legacy33`): the one parser every shell calls, and the one
/// decision over the union of the readings the list names (the vectors are `Vectors/readings.json`).
@Suite struct ReadListTests {
    @Test("one name maps as before; a list is anyOf, in any order")
    func names() throws {
        #expect(try ReadPolicy(naming: "auto") == .rule)
        #expect(try ReadPolicy(naming: "auto", legacyScheme: .legacy) == .headerlessAs(.legacy))
        #expect(try ReadPolicy(naming: "legacy33") == .only(.legacy33))
        let list = try #require(try ReadPolicy(naming: "auto,legacy33").list)
        #expect(list.auto && list.legacyScheme == nil && list.schemes == [.legacy33])
        #expect(list.description == "auto,legacy33")
        #expect(try ReadPolicy(naming: "legacy33,auto") == ReadPolicy(naming: "auto,legacy33"))
        let pinned = try #require(try ReadPolicy(naming: "auto,legacy33", legacyScheme: .legacyRandomIV).list)
        #expect(pinned.legacyScheme == .legacyRandomIV)
        #expect(try ReadPolicy(naming: "legacy,legacy33").list?.schemes == [.legacy, .legacy33])
        #expect(try ReadPolicy(naming: "auto,legacy33").list?.policies == [.rule, .only(.legacy33)])
    }

    @Test("a list that names a reading twice, or nothing, is refused in one line saying what to change",
          arguments: [("auto,auto", "names auto twice"), ("legacy33,legacy33", "names legacy33 twice"),
                      ("auto,legacy", "names legacy beside auto, which already reads it"),
                      ("auto,acrh", "names acrh beside auto"), ("auto,legacy-random-iv", "beside auto"),
                      ("auto,", "has an empty item"), (",legacy33", "has an empty item"),
                      ("auto,legacy34", "names 'legacy34', not a scheme"), ("auto,Legacy33", "'Legacy33'")])
    func refused(_ text: String, _ words: String) {
        let error = expectPNError { () throws(PNCryptError) in try ReadPolicy(naming: text) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("\n") == false)
        #expect(error?.message.contains("auto,legacy33") == true, "says what a list looks like")
    }

    @Test("--legacy-scheme needs auto in the list")
    func legacySchemeWithoutAuto() {
        let error = expectPNError { () throws(PNCryptError) in
            try ReadPolicy(naming: "legacy,legacy33", legacyScheme: .legacy)
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("--legacy-scheme") == true)
    }

    @Test("iOS 3.3 text and today's read in one pass; each alone still fails the other's")
    func onePass() throws {
        let ring = try KeyRing(["enigma"])
        let list = try ReadPolicy(naming: "auto,legacy33")
        // spec.json's legacy33 "Hello World" and acrh "Hello world".
        let ios33 = try Base64.decode("UzIyeVhanI+QnyaNqVob2A==")
        let modern = try CryptoModule(cipherKey: "enigma").encryptBinary([UInt8]("today's"))
        #expect(try ring.decrypt(ios33, reading: list, content: .text).plaintext == [UInt8]("Hello World"))
        #expect(try ring.decrypt(ios33, reading: list, content: .text).scheme == .legacy33)
        #expect(try ring.decrypt(modern, reading: list, content: .text).plaintext == [UInt8]("today's"))
        #expect(try ring.decrypt(modern, reading: list, content: .text).scheme == .acrh)
        // Alone: the modern data is not whole blocks for legacy33, as before.
        let alone = expectPNError { () throws(PNCryptError) in
            try ring.decrypt(modern, reading: .only(.legacy33), content: .text)
        }
        #expect(alone?.message.contains("not a whole number") == true, "\(alone?.message ?? "")")
    }

    @Test("two readings of the list qualify: ambiguous, nothing delivered (the vector readings.json holds)")
    func ambiguous() throws {
        let ring = try KeyRing(["enigma"])
        let sealed = try Base64.decode("lrLRTcyN7e9GMUAo9cJxFA==")
        #expect(try ring.decrypt(sealed, reading: .only(.legacy33), content: .text).plaintext == [UInt8]("gmgav"))
        #expect(try ring.decrypt(sealed, reading: .only(.legacy), content: .text).plaintext.count == 15)
        let error = expectPNError { () throws(PNCryptError) in
            try ring.decrypt(sealed, reading: try ReadPolicy(naming: "auto,legacy33"), content: .text)
        }
        #expect(error?.code == .ambiguous)
        #expect(error?.message.contains("legacy, legacy33") == true, "\(error?.message ?? "")")
    }

    @Test("a file is read as one format: a list is refused")
    func files() throws {
        let key = try CipherKey("enigma")
        let error = expectPNError { () throws(PNCryptError) in
            _ = try StreamDecryptor(key: key, reading: try ReadPolicy(naming: "auto,legacy33"))
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("name one scheme, or auto") == true)
    }
}
