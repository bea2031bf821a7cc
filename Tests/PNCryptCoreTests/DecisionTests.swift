import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

/// The one decision procedure (`Decision`): its rules per content kind and its whole-length UTF-8 check.
@Suite struct DecisionTests {
    func verdict(_ key: Int, _ scheme: Scheme, padding: Bool, utf8: Bool, message: Bool) -> Decision.Verdict {
        Decision.Verdict(keyIndex: key, scheme: scheme, padding: padding, utf8: utf8, message: message)
    }

    @Test("bytes need padding, text also UTF-8, messages also JSON; one reading or several, the same rules")
    func rules() throws {
        let paddingOnly = verdict(0, .legacy, padding: true, utf8: false, message: false)
        let text = verdict(0, .legacyRandomIV, padding: true, utf8: true, message: false)
        let message = verdict(1, .legacy, padding: true, utf8: true, message: true)
        let noPadding = verdict(1, .legacyRandomIV, padding: false, utf8: true, message: true)
        #expect(try Decision.decide([paddingOnly], content: .bytes, namingKeys: false) == 0)
        #expect(expectPNError { () throws(PNCryptError) in
            try Decision.decide([paddingOnly], content: .text, namingKeys: false)
        } == CryptoModule.decryptionFailed)
        #expect(expectPNError { () throws(PNCryptError) in
            try Decision.decide([text], content: .message, namingKeys: false)
        } == CryptoModule.decryptionFailed)
        #expect(try Decision.decide([paddingOnly, text, noPadding], content: .text, namingKeys: true) == 1)
        #expect(try Decision.decide([paddingOnly, text, message, noPadding], content: .message, namingKeys: true) == 2)
        let several = expectPNError { () throws(PNCryptError) in
            try Decision.decide([paddingOnly, noPadding, message], content: .bytes, namingKeys: true)
        }
        #expect(several?.code == .ambiguous)
        #expect(several?.message.contains("key #1 legacy, key #2 legacy") == true, "\(several?.message ?? "")")
        #expect(expectPNError { () throws(PNCryptError) in
            try Decision.decide([noPadding], content: .bytes, namingKeys: false)
        } == CryptoModule.decryptionFailed)
    }

    @Test("the whole-length UTF-8 check agrees with the standard library on edge cases and random bytes")
    func utf8InFull() throws {
        let cases: [[UInt8]] = [
            [], [0x41], [0xC2, 0x80], [0xC1, 0xBF], [0xC0, 0x80], [0xE0, 0xA0, 0x80], [0xE0, 0x9F, 0xBF],
            [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0xE2, 0x82], [0x80], [0xFF], Array("héllo 漢語 😀".utf8), Array("héllo 漢語 😀".utf8).dropLast(1) + [],
        ]
        var random = SystemRandomNumberGenerator()
        var all = cases
        for n in 0..<3000 {
            // Mostly valid text with a few random bytes, so both answers are common.
            var bytes = Array("ab漢😀".utf8).shuffled(using: &random)
            if n % 2 == 0 { bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255) }
            all.append(bytes)
        }
        // Long inputs (read by four automata at once): an invalid byte or a cut character anywhere, and 4+
        // continuation bytes at a quarter.
        let long = Array(String(repeating: "añ漢😀", count: 40).utf8)
        for position in stride(from: 0, to: long.count, by: 7) {
            var bad = long
            bad[position] = 0xFF
            all.append(bad)
            all.append(Array(long[position...]))
            all.append(Array(long[..<position]))
        }
        all.append(long)
        for length in 60...70 { all.append(Array(long.prefix(length))) }
        all.append([UInt8](repeating: 0x41, count: 300) + [UInt8](repeating: 0x80, count: 8)
                   + [UInt8](repeating: 0x41, count: 300))
        for bytes in all {
            let expected = String(validating: bytes, as: UTF8.self) != nil
            for vectors in ByteVectorsTests.paths {
                #expect(bytes.withUnsafeBytes { Decision.isValidUTF8InFull($0, vectors: vectors) } == expected,
                        "\(bytes), vectors \(vectors)")
            }
            #expect(bytes.withUnsafeBytes { isValidUTF8($0) } == expected, "\(bytes)")
        }
    }

    @Test("the whole-length UTF-8 check agrees with the standard library on every byte and every pair of bytes",
          arguments: ByteVectorsTests.paths)
    func utf8InFullEveryPair(vectors: Bool) {
        // Each pair after 0 to 8 ASCII bytes, so that it sits at every place of the loop's 8-byte pass and its tail;
        // the vector path's 16-byte blocks: after 0 to 17, so that it also straddles the first block's end.
        let places = vectors ? 18 : 9
        for first in 0...255 {
            let single = [UInt8(first)]
            #expect(single.withUnsafeBytes { Decision.isValidUTF8InFull($0, vectors: vectors) }
                    == (String(validating: single, as: UTF8.self) != nil), "\(single)")
            for second in 0...255 {
                let bytes = [UInt8](repeating: 0x61, count: (first + second) % places) + [UInt8(first), UInt8(second)]
                let expected = String(validating: bytes, as: UTF8.self) != nil
                let got = bytes.withUnsafeBytes { Decision.isValidUTF8InFull($0, vectors: vectors) }
                if got != expected { Issue.record("\(bytes): \(got), the standard library says \(expected)") }
            }
        }
    }

    @Test("the two-reading UTF-8 pass gives each reading's whole-length answer, a character across byte 16 included",
          arguments: ByteVectorsTests.paths)
    func utf8InFullSplit(vectors: Bool) {
        var random = SystemRandomNumberGenerator()
        var all: [[UInt8]] = []
        // Characters of 1 to 4 bytes at every offset around the split, so one spans byte 16 in many ways.
        let text = Array(String(repeating: "añ漢😀", count: 8).utf8)
        for start in 0..<12 {
            for length in [16, 17, 20, 31, 32, 33, 48, 64] where start + length <= text.count {
                var bytes = Array(text[start..<(start + length)])
                all.append(bytes)
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255)
                all.append(bytes)
            }
        }
        for n in 0..<2000 {
            var bytes = (0..<(16 + n % 40)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if n % 3 == 0 { bytes = bytes.map { $0 & 0x7F } }
            all.append(bytes)
        }
        for bytes in all {
            let whole = String(validating: bytes, as: UTF8.self) != nil
            let tail = String(validating: bytes.dropFirst(16), as: UTF8.self) != nil
            let got = bytes.withUnsafeBytes { Decision.isValidUTF8InFull($0, split: 16, vectors: vectors) }
            #expect(got.whole == whole && got.tail == tail, "\(bytes)")
        }
    }

    @Test("both legacy readings from one decryption give the verdicts and plaintext of each reading decrypted alone")
    func sharedPairMatchesEachReading() throws {
        let keys = [try CipherKey("enigma"), try CipherKey("other-key")]
        let module = CryptoModule(key: keys[0])
        var random = SystemRandomNumberGenerator()
        var inputs: [[UInt8]] = []
        let plaintexts = ["hello there, this is text", #"{"a":1,"b":"two"}"#, "ab漢😀cdé漢字 more text here",
                          "12345678901234567"]
        for plaintext in plaintexts {
            inputs.append(try module.encryptBinary(Array(plaintext.utf8), scheme: .legacy))
            inputs.append(try module.encryptBinary(Array(plaintext.utf8), scheme: .legacyRandomIV))
        }
        for n in 0..<200 {
            inputs.append((0..<(32 + 16 * (n % 4))).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
        for input in inputs {
            let readings = try Cryptor.readings(of: input, reading: .rule)
            #expect(readings.isHeaderlessPair)
            for content in [KeyRing.Content.bytes, .text, .message] {
                for ring in [[keys[0]], keys] {
                    // Each reading decrypted on its own, with every check (what `openEach` did before).
                    var verdicts: [Decision.Verdict] = []
                    var plaintexts: [[UInt8]] = []
                    for (keyIndex, key) in ring.enumerated() {
                        for reading in readings {
                            var out = [UInt8](repeating: 0, count: input.count + 16)
                            let (count, length, padding) = input.withUnsafeBytes { bytes in
                                out.withUnsafeMutableBytes {
                                    ReadingCipher.openChecked(reading, of: bytes, with: key, into: $0.baseAddress!)
                                }
                            }
                            verdicts.append(out.withUnsafeBytes {
                                Decision.verdict(of: UnsafeRawBufferPointer(rebasing: $0[0..<length]),
                                                 plaintextCount: count, padding: padding, keyIndex: keyIndex,
                                                 scheme: reading.scheme, content: content, pair: true,
                                                 check: messageCheck(_:readable:))
                            })
                            plaintexts.append(Array(out[0..<count]))
                        }
                    }
                    let expected = Result { () throws(PNCryptError) in
                        try Decision.decide(verdicts, content: content, namingKeys: ring.count > 1)
                    }
                    let got = Result { () throws(PNCryptError) in
                        try KeyRing(keys: ring).decrypt(input, reading: .rule, content: content)
                    }
                    switch (expected, got) {
                    case (.success(let winner), .success(let match)):
                        #expect(match.plaintext == plaintexts[winner])
                        #expect(match.keyIndex == verdicts[winner].keyIndex && match.scheme == verdicts[winner].scheme)
                    case (.failure(let a), .failure(let b)):
                        #expect(a == b)
                    default:
                        Issue.record("\(input) \(content): each reading alone gives \(expected), shared \(got)")
                    }
                }
            }
        }
    }
}
