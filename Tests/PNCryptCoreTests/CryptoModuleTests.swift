import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

@Suite struct CryptoModuleTests {
    let enigma = try! CryptoModule(cipherKey: "enigma")

    @Test("encrypts spec.json's legacy example and reads it back")
    func legacy() throws {
        let v = try Package.specVector("spec-legacy-yay")
        let plaintext = try #require(v.plaintext), ciphertext = try #require(v.ciphertext)
        #expect(try enigma.encrypt([UInt8](plaintext), scheme: .legacy) == ciphertext)
        #expect(try enigma.decryptBytes(ciphertext) == [UInt8](plaintext))
    }

    @Test("writes acrh by default: a fresh random IV in a PNED header every time")
    func acrhDefault() throws {
        let a = try enigma.encryptBinary([UInt8]("hello"))
        let b = try enigma.encryptBinary([UInt8]("hello"))
        #expect(Array(a.prefix(10)) == [UInt8]("PNED") + [1] + [UInt8]("ACRH") + [16])
        #expect(a.count == 26 + 16)
        #expect(a != b)
        #expect(Array(a[10..<26]) != Array(b[10..<26]))
        #expect(try enigma.decryptBinary(a) == [UInt8]("hello"))
        #expect(try enigma.detectScheme(a) == .acrh)
    }

    @Test("legacy-random-iv puts the IV first")
    func randomIV() throws {
        let v = try Package.specVector("spec-legacy-random-iv-yay")
        let ivHex = try #require(v.iv)
        let iv = try #require(Hex.decode(ivHex))
        #expect(iv == [UInt8]("1234567890123456"))
        let out = try enigma.encryptBinary([UInt8](try #require(v.plaintext)), scheme: .legacyRandomIV, iv: iv)
        #expect(Base64.encode(out) == v.ciphertext)
        let random = try enigma.encryptBinary([UInt8]("yay!"), scheme: .legacyRandomIV)
        #expect(random.count == 32)
        #expect(try enigma.decryptBinary(random, reading: .only(.legacyRandomIV)) == [UInt8]("yay!"))
    }

    @Test("decrypt without a header uses the configured legacy scheme")
    func legacySchemeSetting() throws {
        let data = try enigma.encryptBinary([UInt8]("yay!"), scheme: .legacyRandomIV)
        var module = enigma
        // Told nothing, as bytes the headerless rule reads the fixed-IV reading's first block: a decrypted IV, so
        // the random-IV reading, whole.
        #expect(try module.decryptBinary(data) == [UInt8]("yay!"))
        // Read with the fixed IV, IV ‖ ciphertext still has valid padding: the IV block becomes 16 bytes of
        // garbage before the real plaintext. Nothing in the bytes tells the two apart (docs/formats.md section 1).
        module.reading = .headerlessAs(.legacy)
        let misread = try module.decryptBinary(data)
        #expect(misread.count == 20)
        #expect(Array(misread.suffix(4)) == [UInt8]("yay!"))
        module.reading = .headerlessAs(.legacyRandomIV)
        #expect(try module.decryptBinary(data) == [UInt8]("yay!"))
        #expect(try module.detectScheme(data) == .legacyRandomIV)
        // A module with only the acrh cryptor: headerless data would need the legacy one (contract scenarios).
        module.reading = .headerlessAs(.acrh)
        #expect(expectPNError { () throws(PNCryptError) in try module.decryptBinary(data) }?.code == .unknownCryptor)
    }

    @Test("each ReadPolicy reads what it says: .rule the header or the headerless rule, .headerlessAs one, .only one")
    func readPolicies() throws {
        let ring = try KeyRing(["enigma"])
        let text = Array("Hello world, this is a long message".utf8)
        let fixed = try enigma.encryptBinary(text, scheme: .legacy)
        let random = try enigma.encryptBinary(text, scheme: .legacyRandomIV)
        let acrh = try enigma.encryptBinary(text, scheme: .acrh)
        // .rule (the default): the header; headerless, as bytes, the headerless rule: each IV setting, whole.
        #expect(try ring.decrypt(acrh).scheme == .acrh)
        #expect(try ring.decrypt(fixed, reading: .rule).scheme == .legacy)
        let told = try ring.decrypt(random)
        #expect(told.scheme == .legacyRandomIV && told.plaintext == text)
        // .headerlessAs: the header still read; headerless data as that scheme alone, right or wrong.
        #expect(try ring.decrypt(acrh, reading: .headerlessAs(.legacy)).plaintext == text)
        #expect(try ring.decrypt(random, reading: .headerlessAs(.legacyRandomIV)).plaintext == text)
        let misread = try ring.decrypt(random, reading: .headerlessAs(.legacy))
        #expect(misread.scheme == .legacy && misread.plaintext.count == text.count + 16)
        // .headerlessAs(.acrh): no headerless reading; a header is read.
        let refused = expectPNError { () throws(PNCryptError) in
            try ring.decrypt(fixed, reading: .headerlessAs(.acrh))
        }
        #expect(refused?.code == .unknownCryptor)
        #expect(try ring.decrypt(acrh, reading: .headerlessAs(.acrh)).plaintext == text)
        // .only: that scheme alone (acrh requires the header; the others never look for one).
        #expect(try ring.decrypt(random, reading: .only(.legacyRandomIV)).plaintext == text)
        #expect(expectPNError { () throws(PNCryptError) in try ring.decrypt(fixed, reading: .only(.acrh)) }?.code
                == .unknownCryptor)
        #expect(expectPNError { () throws(PNCryptError) in try ring.decrypt(acrh, reading: .only(.legacy)) }?.category
                == .decryption)
        // A module: its `reading`, a call's own, and its own headerless scheme unless the reading is .only.
        var own = CryptoModule(key: enigma.key, scheme: .legacyRandomIV)
        #expect(try own.decryptBinary(random) == text)
        own.reading = .headerlessAs(.acrh)
        #expect(try own.decryptBinary(random) == text)
        #expect(try own.decryptBinary(acrh) == text)
        #expect(try own.decryptBinary(random, reading: .only(.legacy)).count == text.count + 16)
        own.reading = .only(.acrh)
        #expect(expectPNError { () throws(PNCryptError) in try own.decryptBinary(random) }?.code == .unknownCryptor)
        #expect(try own.decryptBinary(random, reading: .rule) == text)
    }

    @Test("each ReadPolicy reads a stream as it says; legacy33, which has no file format, is refused")
    func streamReadPolicies() throws {
        let key = enigma.key
        let text = Array("Hello world, this is a long message".utf8)
        func read(_ sealed: [UInt8], _ policy: ReadPolicy) throws(PNCryptError) -> (Scheme?, [UInt8]) {
            let stage = try StreamDecryptor(key: key, reading: policy)
            var out: [UInt8] = []
            try withBytes(sealed) { (b) throws(PNCryptError) in try stage.update(b) { out += $0 } }
            try stage.finish { out += $0 }
            return (stage.scheme, out)
        }
        let random = try enigma.encryptBinary(text, scheme: .legacyRandomIV)
        let fixed = try enigma.encryptBinary(text, scheme: .legacy)
        // The rule for files: a fixed-IV first block of text is the fixed IV, anything else the random IV.
        #expect(try read(fixed, .rule) == (.legacy, text))
        #expect(try read(random, .rule) == (.legacyRandomIV, text))
        #expect(try read(random, .headerlessAs(.legacy)).1.count == text.count + 16)
        #expect(try read(fixed, .only(.legacy)) == (.legacy, text))
        #expect(expectPNError { () throws(PNCryptError) in try read(fixed, .only(.acrh)) }?.code == .unknownCryptor)
        #expect(expectPNError { () throws(PNCryptError) in try read(fixed, .headerlessAs(.acrh)) }?.code
                == .unknownCryptor)
        for policy in [ReadPolicy.only(.legacy33), .headerlessAs(.legacy33)] {
            let refused = expectPNError(.invalidValue) { () throws(PNCryptError) in
                try StreamDecryptor(key: key, reading: policy)
            }
            #expect(refused != nil)
        }
    }

    @Test("an explicit scheme reads only that format")
    func explicitScheme() throws {
        let acrh = try enigma.encryptBinary([UInt8]("hello"), scheme: .acrh)
        let legacy = try enigma.encryptBinary([UInt8]("hello"), scheme: .legacy)
        let noHeader = expectPNError { () throws(PNCryptError) in
            try enigma.decryptBinary(legacy, reading: .only(.acrh))
        }
        #expect(noHeader?.code == .unknownCryptor)  // headerless: the legacy cryptor's data (contract scenarios)
        #expect(noHeader?.message.contains("no PNED header") == true)
        let asLegacy = expectPNError { () throws(PNCryptError) in
            try enigma.decryptBinary(acrh, reading: .only(.legacy))
        }
        #expect(asLegacy?.category == .decryption)
    }

    @Test("legacy33 uses AES-128 with the MD5 key")
    func legacy33() throws {
        let hello = try Package.specVector("spec-legacy33-hello-world")
        let seven = try Package.specVector("spec-legacy33-seven")
        #expect(try enigma.encrypt([UInt8](try #require(hello.plaintext)), scheme: .legacy33) == hello.ciphertext)
        #expect(try enigma.decryptBytes(try #require(seven.ciphertext), reading: .only(.legacy33))
                == [UInt8](try #require(seven.plaintext)))
    }

    @Test("empty plaintext: an encryption error in every scheme; one block of padding decrypts to nothing")
    func emptyPlaintext() throws {
        for scheme in Scheme.allCases {
            let error = expectPNError { () throws(PNCryptError) in
                try enigma.encryptBinary([UInt8](), scheme: scheme)
            }
            #expect(error?.code == .emptyPlaintext)
            #expect(error?.category == .encryption)
            // What older clients wrote for empty data (PubNub's contract files): 16 bytes of padding.
            let iv = scheme == .legacy || scheme == .legacy33 ? nil : [UInt8](repeating: 7, count: 16)
            var padded = try enigma.encryptBinary([UInt8](repeating: 16, count: 16), scheme: scheme, iv: iv)
            padded.removeLast(16)
            #expect(try enigma.decryptBinary(padded, reading: .only(scheme)) == [])
        }
    }

    @Test("refuses IVs it cannot use")
    func badIV() throws {
        #expect(expectPNError { () throws(PNCryptError) in
            try enigma.encryptBinary([UInt8]("x"), scheme: .acrh, iv: [1, 2, 3])
        }?.code == .invalidIV)
        #expect(expectPNError { () throws(PNCryptError) in
            try enigma.encryptBinary([UInt8]("x"), scheme: .legacy, iv: [UInt8](repeating: 0, count: 16))
        }?.code == .invalidIV)
        #expect(try enigma.encryptBinary([UInt8]("x"), scheme: .legacy, iv: Cryptor.fixedIV).count == 16)
    }

    @Test("cipher failures are decryption errors with a reason")
    func failures() throws {
        let wrongKey = try CryptoModule(cipherKey: "not enigma")
        let data = try Base64.decode(try Package.specCiphertext("spec-legacy-yay"))
        let bad = expectPNError { () throws(PNCryptError) in try wrongKey.decryptBinary(data) }
        #expect(bad?.code == .wrongKeyOrCorrupt)
        #expect(bad?.message == CryptoModule.decryptionFailed.message)
        let unaligned = expectPNError { () throws(PNCryptError) in try enigma.decryptBinary(Array(data.prefix(15))) }
        #expect(unaligned?.message.contains("not a whole number of 16-byte AES blocks") == true)
        let empty = expectPNError { () throws(PNCryptError) in try enigma.decryptBinary([UInt8]()) }
        #expect(empty?.message == "empty ciphertext")
        let headerOnly = try CryptorHeader(metadata: [UInt8](repeating: 0, count: 16)).encoded()
        let noBody = expectPNError { () throws(PNCryptError) in try enigma.decryptBinary(headerOnly) }
        #expect(noBody?.message == "empty ciphertext after the PNED header")
        let unknown = try CryptorHeader(cryptorID: [UInt8]("ACRB"),
                                        metadata: [UInt8](repeating: 0, count: 16)).encoded()
        let unknownError = expectPNError { () throws(PNCryptError) in try enigma.decryptBinary(unknown + data) }
        #expect(unknownError?.category == .unknownCryptor)
        #expect(unknownError?.message.contains("'ACRB'") == true)
        // A failed decryption leaves the pooled context usable.
        #expect(try enigma.decryptBinary(data) == [UInt8]("yay!"))
    }

    /// 8 tasks share one module; each encrypts and decrypts the same 100,000 messages (starting at a different
    /// place, so all four schemes run at once on the shared context pools) and must get byte for byte what one
    /// thread got. Random-IV schemes take an IV derived from the message index, so every result is deterministic.
    @Test("one module shared by 8 tasks, 100k messages each, gives the single-threaded results",
          .tags(.stress), .notInQuickRun)
    func concurrency() async throws {
        let module = enigma
        let count = 100_000
        let schemes = Scheme.allCases
        let messages = (0..<count).map { [UInt8]("m\($0)" + String(repeating: "x", count: $0 % 24)) }
        let ivs = (0..<count).map { i in (0..<16).map { UInt8(truncatingIfNeeded: i >> ($0 % 4 * 8) &+ $0) } }
        let seal = { @Sendable (i: Int) throws(PNCryptError) -> [UInt8] in
            let scheme = schemes[i % schemes.count]
            let randomIV = scheme == .legacyRandomIV || scheme == .acrh
            return try module.encryptBinary(messages[i], scheme: scheme, iv: randomIV ? ivs[i] : nil)
        }
        // The single-threaded run.
        var reference: [[UInt8]] = []
        reference.reserveCapacity(count)
        for i in 0..<count { reference.append(try seal(i)) }
        let expected = reference
        for i in 0..<count
            where try module.decryptBinary(expected[i], reading: .only(schemes[i % schemes.count])) != messages[i] {
            Issue.record("single-threaded round trip failed at \(i)")
        }

        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var bad = 0
                    for j in 0..<count {
                        let i = (j + task * 12_347) % count
                        let sealed = try seal(i)
                        let opened = try module.decryptBinary(sealed, reading: .only(schemes[i % schemes.count]))
                        if sealed != expected[i] || opened != messages[i] { bad += 1 }
                    }
                    return bad
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(mismatches == Array(repeating: 0, count: 8))
    }
}
