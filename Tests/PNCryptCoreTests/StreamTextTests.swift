import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

// Text encrypted and decrypted as streams. `TextStreamEncryptor` writes the one-shot text
// byte for byte; `UTF8StreamValidator` gives the one-shot verdict however the bytes are cut; `TextStreamDecryptor`
// chooses as the key ring does for text, and writes nothing before it has chosen.

/// `reader`'s plaintext for `ciphertext`, or its error: the ciphertext read from a file by offset, as the shells
/// read a regular file.
private func readStreamed(_ reader: TextStreamDecryptor, _ ciphertext: [UInt8], in dir: URL)
    throws -> Result<(plaintext: [UInt8], keyIndex: Int, scheme: Scheme), PNCryptError> {
    let fd = try Descriptors.file(ciphertext, in: dir)
    defer { close(fd) }
    let read: TextStreamDecryptor.ReadAt = { (buffer, offset) throws(PNCryptError) in
        try Descriptors.read(fd, at: offset, into: buffer)
    }
    do throws(PNCryptError) {
        let choice = try reader.choose(ciphertext: read, length: ciphertext.count)
        var out: [UInt8] = []
        try reader.write(choice, ciphertext: read) { out.append(contentsOf: $0) }
        return .success((out, choice.keyIndex, choice.scheme))
    } catch {
        return .failure(error)
    }
}

private let fixedIV = Array("0123456789012345".utf8)

@Suite struct StreamTextTests {
    @Test("TextStreamEncryptor writes CryptoModule.encrypt's text, every scheme, lengths 1-300, chunked",
          arguments: Scheme.allCases)
    func encryptorMatchesOneShot(scheme: Scheme) throws {
        let key = try CipherKey("enigma")
        var generator = SeededRandom(seed: 10)
        for count in Array(1...300) + [4095, 4096, 4097, 70_000] {
            let plaintext = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Array(try CryptoModule(key: key).encrypt(plaintext, scheme: scheme, iv: fixedIV).utf8)
            let streamed = runStage(try TextStreamEncryptor(key: key, scheme: scheme, iv: fixedIV), plaintext,
                                    cuts: randomCuts(count, using: &generator))
            #expect(sameOutcome(streamed, .success(expected)), "\(scheme) length \(count)")
        }
    }

    @Test("TextStreamEncryptor refuses empty input (emptyPlaintext) having written nothing")
    func encryptorRefusesEmpty() throws {
        for scheme in Scheme.allCases {
            let stage = try TextStreamEncryptor(key: try CipherKey("k"), scheme: scheme)
            var written = 0
            try withBytes([UInt8]()) { (empty) throws(PNCryptError) in try stage.update(empty) { written += $0.count } }
            expectPNError(.emptyPlaintext) { () throws(PNCryptError) in try stage.finish { written += $0.count } }
            #expect(written == 0, "\(scheme)")
        }
    }

    @Test("UTF8StreamValidator gives isValidUTF8's verdict on 20,000 texts cut anywhere")
    func utf8AcrossChunks() {
        var generator = SeededRandom(seed: 8)
        let pieces: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array("€".utf8), Array("𝄞".utf8), [0x0A],
                                 [0xC3], [0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF], [0xFF],
                                 [0xE2, 0x82], [0xF0, 0x9D]]
        var invalid = 0
        for round in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                // Mostly valid pieces, so that valid and invalid texts are both common.
                let index = Int.random(in: 0..<(round % 2 == 0 ? 5 : pieces.count), using: &generator)
                bytes += pieces[index]
            }
            let expected = bytes.withUnsafeBytes { isValidUTF8($0) }
            if !expected { invalid += 1 }
            var validator = UTF8StreamValidator()
            var start = 0
            for end in randomCuts(bytes.count, using: &generator) + [bytes.count] where end >= start {
                bytes[start..<end].withUnsafeBytes { validator.update($0) }
                start = end
            }
            #expect(validator.finish() == expected, "\(bytes)")
        }
        #expect(invalid > 2000 && invalid < 18_000, "both verdicts are tried: \(invalid) invalid")
    }

    @Test("TextStreamDecryptor reads what KeyRing.decrypt reads for text, every scheme and several keys")
    func readerMatchesKeyRing() throws {
        try withTemporaryDirectory { dir in
            let plaintext = Array("Hello, streamed world: é€𝄞\n".utf8)
                + Array(repeating: UInt8(ascii: "x"), count: 5000)
            for scheme in Scheme.allCases {
                let sealed = try CryptoModule(cipherKey: "right").encryptBinary(plaintext, scheme: scheme, iv: fixedIV)
                let explicit = scheme == .legacy33 ? Scheme.legacy33 : nil
                // Headerless data of several blocks passes both legacy readings: say which (as a client is set).
                let legacy: Scheme? = scheme == .legacyRandomIV || scheme == .legacy ? scheme : nil
                let ring = try KeyRing(["other", "right"])
                let policy = ReadPolicy(scheme: explicit, legacyScheme: legacy)
                let expected = try ring.decrypt(sealed, reading: policy, content: .text)
                let reader = TextStreamDecryptor(ring: ring, reading: policy)
                let streamed = try readStreamed(reader, sealed, in: dir).get()
                #expect(streamed.plaintext == expected.plaintext, "\(scheme)")
                #expect(streamed.keyIndex == 1 && expected.keyIndex == 1, "\(scheme)")
                #expect(streamed.scheme == scheme, "\(scheme)")
            }
        }
    }

    @Test("TextStreamDecryptor in auto mode (both legacy readings from one stream) decides as KeyRing does")
    func readerPairMatchesKeyRing() throws {
        try withTemporaryDirectory { dir in
            let module = try CryptoModule(cipherKey: "right")
            var random = SystemRandomNumberGenerator()
            var inputs: [[UInt8]] = []
            let texts = ["hello world, the text of a message", #"{"text":"hi","n":12}"#, "añ漢😀 añ漢😀 añ漢😀 añ漢😀",
                         "Grüße aus München", "1234567890123456789"]
            for text in texts {
                for cut in [17, 20, 33, 40] {
                    let plaintext = Array(text.utf8.prefix(cut))
                    inputs.append(try module.encryptBinary(plaintext, scheme: .legacy))
                    inputs.append(try module.encryptBinary(plaintext, scheme: .legacyRandomIV))
                }
            }
            for n in 0..<60 {
                inputs.append((0..<(32 + 16 * (n % 3))).map { _ in UInt8.random(in: 0...255, using: &random) })
            }
            for input in inputs {
                for keys in [["right"], ["other", "right"]] {
                    let ring = try KeyRing(keys)
                    let expected = Result { () throws(PNCryptError) in
                        try ring.decrypt(input, reading: .rule, content: .text)
                    }
                    let streamed = try readStreamed(TextStreamDecryptor(ring: ring, reading: .rule), input, in: dir)
                    switch (expected, streamed) {
                    case (.success(let a), .success(let b)):
                        #expect(a.plaintext == b.plaintext && a.keyIndex == b.keyIndex && a.scheme == b.scheme)
                    case (.failure(let a), .failure(let b)):
                        #expect(a.code == b.code && a.message == b.message)
                    default:
                        Issue.record("\(input.prefix(8)) \(keys): KeyRing \(expected), streamed \(streamed)")
                    }
                }
            }
        }
    }

    @Test("TextStreamDecryptor fails as KeyRing.decrypt does: format errors, wrong key")
    func readerFailures() throws {
        try withTemporaryDirectory { dir in
            // Text whose padding is valid under every key and reading: the legacy readings differ only in their
            // first block, so a fixed-IV plaintext of three blocks decrypts both ways, and both are UTF-8 when the
            // first block is ASCII under both IVs.
            let module = try CryptoModule(cipherKey: "k")
            let cases: [([UInt8], [String], Scheme?)] = [
                ([], ["k"], nil),
                (Array(repeating: 7, count: 17), ["k"], nil),
                (Array("PNED\u{01}ACRH".utf8), ["k"], nil),
                (Array("PNED\u{01}XXXX\u{00}".utf8) + Array(repeating: 1, count: 16), ["k"], nil),
                (try module.encryptBinary(Array("text".utf8), scheme: .acrh), ["wrong"], nil),
                (try module.encryptBinary(Array("text".utf8), scheme: .legacy), ["k"], .acrh),
            ]
            for (ciphertext, keys, scheme) in cases {
                let ring = try KeyRing(keys)
                let expected = Result { () throws(PNCryptError) in
                    try ring.decrypt(ciphertext, reading: ReadPolicy(scheme: scheme, legacyScheme: nil), content: .text)
                }
                let reader = TextStreamDecryptor(ring: ring, reading: ReadPolicy(scheme: scheme, legacyScheme: nil))
                let streamed = try readStreamed(reader, ciphertext, in: dir)
                switch (expected, streamed) {
                case (.failure(let a), .failure(let b)):
                    #expect(a.code == b.code && a.message == b.message, "\(ciphertext.prefix(12)): \(a) vs \(b)")
                default:
                    Issue.record("expected both to fail: \(expected) / \(streamed)")
                }
            }
            // Two readings that both qualify can no longer come from one key given twice: the ring refuses it
            // (issue 46), so the reader never sees that ambiguity.
            #expect(throws: PNCryptError.self) { try KeyRing(["k", "k"]) }
        }
    }

    @Test("a plaintext that is not UTF-8 never comes out of TextStreamDecryptor, nor a wrong key's bytes")
    func readerRequiresUTF8() throws {
        try withTemporaryDirectory { dir in
            // Valid padding, not UTF-8: refused even with one key and an explicit scheme.
            let binary: [UInt8] = [0xFF, 0xFE, 0x00, 0x80]
            let sealed = try CryptoModule(cipherKey: "k").encryptBinary(binary, scheme: .legacy)
            let reader = TextStreamDecryptor(ring: try KeyRing(["k"]), reading: .only(.legacy))
            guard case .failure(let error) = try readStreamed(reader, sealed, in: dir) else {
                Issue.record("a plaintext that is not UTF-8 was delivered as text")
                return
            }
            #expect(error.message == CryptoModule.decryptionFailed.message)
            // Wrong keys on a 1-block headerless message: whatever the padding gives, no garbage with success.
            let text = try CryptoModule(cipherKey: "right").encryptBinary(Array("hi".utf8), scheme: .legacy)
            for index in 0..<300 {
                let wrong = TextStreamDecryptor(ring: try KeyRing(["wrong-\(index)"]), reading: .only(.legacy))
                if case .success(let got) = try readStreamed(wrong, text, in: dir) {
                    #expect(String(validating: got.plaintext, as: UTF8.self) != nil, "key wrong-\(index)")
                }
            }
        }
    }
}
