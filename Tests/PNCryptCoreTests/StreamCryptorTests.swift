import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

@Suite struct StreamCryptorTests {
    let key = try! CipherKey("enigma")
    let iv = (0..<16).map { UInt8($0 * 3) }
    let plaintext = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    /// Feeds `bytes` to `stage` in chunks of `size`.
    func run(_ stage: any ByteStreamStage, _ bytes: [UInt8], chunk size: Int) throws(PNCryptError) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + size, bytes.count)
            try withBytes(bytes[offset..<end]) { (b) throws(PNCryptError) in try stage.update(b) { out += $0 } }
            offset = end
        }
        try stage.finish { out += $0 }
        return out
    }

    @Test("streamed encryption equals the one-shot file format", arguments: [Scheme.legacyRandomIV, .acrh])
    func matchesOneShot(scheme: Scheme) throws {
        let module = CryptoModule(key: key)
        let oneShot = try module.encryptBinary(plaintext, scheme: scheme, iv: iv)
        for size in [1, 15, 16, 17, 4096, 1 << 20] where size != 1 || scheme == .acrh {
            #expect(try run(StreamEncryptor(key: key, scheme: scheme, iv: iv), plaintext, chunk: size) == oneShot)
        }
    }

    @Test("three file formats: legacy is the bare fixed-IV ciphertext, legacy-random-iv puts its IV first")
    func threeFileFormats() throws {
        let module = CryptoModule(key: key)
        let fixed = try run(StreamEncryptor(key: key, scheme: .legacy), [UInt8]("abc"), chunk: 3)
        #expect(fixed == (try module.encryptBinary([UInt8]("abc"), scheme: .legacy)))
        #expect(try run(StreamDecryptor(key: key, reading: .only(.legacy)), fixed, chunk: 5) == [UInt8]("abc"))
        #expect(try run(StreamDecryptor(key: key, reading: .headerlessAs(.legacy)), fixed, chunk: 5) == [UInt8]("abc"))
        let random = try run(StreamEncryptor(key: key, scheme: .legacyRandomIV), [UInt8]("abc"), chunk: 3)
        #expect(random.count == 32)
        #expect(try module.decryptBinary(random, reading: .only(.legacyRandomIV)) == [UInt8]("abc"))
        #expect(try run(StreamDecryptor(key: key), random, chunk: 5) == [UInt8]("abc"))
        // A fixed-IV file of 3 blocks also has valid padding read as random-IV: the headerless rule reads it with the
        // fixed IV when its first block is text; a binary one is read as the SDKs' random-IV format, 16 bytes short,
        // as docs/formats.md says.
        let long = [UInt8](repeating: 0x61, count: 40)
        let text = try run(StreamDecryptor(key: key), try module.encryptBinary(long, scheme: .legacy), chunk: 7)
        #expect(text == long)
        let binary = [UInt8](repeating: 0x01, count: 40)
        let misread = try run(StreamDecryptor(key: key), try module.encryptBinary(binary, scheme: .legacy), chunk: 7)
        #expect(misread == Array(binary.dropFirst(16)))
        #expect(expectPNError { () throws(PNCryptError) in try StreamEncryptor(key: key, scheme: .legacy33) }?
            .code == .invalidValue)
    }

    @Test("decrypts in any chunking and detects the format", arguments: [Scheme.legacyRandomIV, .acrh])
    func decryptChunked(scheme: Scheme) throws {
        let data = try CryptoModule(key: key).encryptBinary(plaintext, scheme: scheme)
        for size in [1, 3, 16, 25, 26, 27, 65536] {
            let detecting = try StreamDecryptor(key: key)
            #expect(try run(detecting, data, chunk: size) == plaintext)
            #expect(detecting.scheme == scheme)
            #expect(try run(StreamDecryptor(key: key, reading: .only(scheme)), data, chunk: size) == plaintext)
        }
    }

    @Test("reports broken streams with the byte layer's errors")
    func errors() throws {
        let module = CryptoModule(key: key)
        // A fixed IV: with a random one, the wrong key below would pass the padding check about once in 256 runs.
        let acrh = try module.encryptBinary([UInt8]("hello"), scheme: .acrh, iv: Array(0..<16))
        let legacy = try module.encryptBinary([UInt8]("hello"), scheme: .legacyRandomIV)
        let cases: [([UInt8], Scheme?, PNCryptError.Code, String)] = [
            (Array(acrh.prefix(12)), nil, .malformedHeader, "cut short"),
            (Array(acrh.prefix(26)), nil, .wrongKeyOrCorrupt, "empty ciphertext after the PNED header"),
            (Array(acrh.dropLast()), nil, .wrongKeyOrCorrupt, "not a whole number"),
            (Array(legacy.prefix(10)), nil, .wrongKeyOrCorrupt, "too short"),
            (Array(legacy.prefix(16)), .legacyRandomIV, .wrongKeyOrCorrupt, "no ciphertext after the 16-byte IV"),
            ([], nil, .wrongKeyOrCorrupt, "too short"),
            ([], .acrh, .malformedHeader, "empty input"),
            (legacy, .acrh, .unknownCryptor, "no PNED header"),  // the legacy cryptor's data (contract scenarios)
            (acrh + [1], nil, .wrongKeyOrCorrupt, "not a whole number"),
        ]
        for (bytes, scheme, code, words) in cases {
            for size in [1, 7, 4096] {
                let error = expectPNError { () throws(PNCryptError) in
                    let policy = ReadPolicy(scheme: scheme, legacyScheme: nil)
                    _ = try run(StreamDecryptor(key: key, reading: policy), bytes, chunk: size)
                }
                #expect(error?.code == code, "\(bytes.count) bytes, chunk \(size): \(error?.message ?? "")")
                #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
            }
        }
        let wrongKey = expectPNError { () throws(PNCryptError) in
            try run(StreamDecryptor(key: try CipherKey("other")), acrh, chunk: 100)
        }
        #expect(wrongKey?.message == CryptoModule.decryptionFailed.message)
        #expect(expectPNError { () throws(PNCryptError) in
            try run(StreamEncryptor(key: key, scheme: .acrh), [], chunk: 1)
        }?.code == .emptyPlaintext)
    }

    // MARK: API misuse throws, never traps

    @Test("finish twice, or update after finish, throws invalidValue for the cipher stages")
    func finishTwiceThrows() throws {
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        let encryptor = try StreamEncryptor(key: key, scheme: .acrh, iv: iv)
        let sealed = try run(encryptor, plaintext, chunk: 4096)
        #expect(expectPNError { try encryptor.finish { _ in } }?.code == .invalidValue)
        #expect(expectPNError { try encryptor.update(empty) { _ in } }?.code == .invalidValue)

        let decryptor = try StreamDecryptor(key: key)
        #expect(try run(decryptor, sealed, chunk: 4096) == plaintext)
        let twice = expectPNError { try decryptor.finish { _ in } }
        #expect(twice?.code == .invalidValue)
        #expect(twice?.message == "the stream decryptor has already finished")
        #expect(expectPNError { try decryptor.update(empty) { _ in } }?.code == .invalidValue)

        // A finish that failed (the stream was cut short) is final too.
        let cut = try StreamDecryptor(key: key)
        #expect(expectPNError { _ = try run(cut, Array(sealed.prefix(20)), chunk: 7) }?.code == .malformedHeader)
        #expect(expectPNError { try cut.finish { _ in } }?.code == .invalidValue)

    }
}
