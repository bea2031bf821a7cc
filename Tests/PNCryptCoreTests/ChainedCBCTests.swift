import Testing
import PNCryptCore
import PNCryptTestSupport

/// A pooled context encrypts and decrypts messages without re-initialising EVP (`AESCBCContext.run` folds the
/// chaining value into the first block). These tests hold it to plain CBC, one fresh `EVP_CipherInit_ex` per
/// message, over runs of messages of every length, in every order, with failures in between.
@Suite struct ChainedCBCTests {
    /// Plain CBC through a context of its own: `start(iv:)`, `update`, `finish` (the streams' path).
    static func reference(_ key: CipherKey, _ scheme: Scheme, encrypting: Bool, iv: [UInt8], _ input: [UInt8])
        -> [UInt8]? {
        let context = key.pool(scheme, encrypting: encrypting).makeContext()
        var output = [UInt8](repeating: 0, count: input.count + 32)
        let count: Int? = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { inBytes in
                guard iv.withUnsafeBytes({ context.start(iv: $0) }),
                      let n = context.update(inBytes, into: out.baseAddress!),
                      let m = context.finish(into: out.baseAddress! + n) else { return nil }
                return n + m
            }
        }
        return count.map { Array(output.prefix($0)) }
    }

    /// `run` on the pool's shared context, as messages use it.
    static func pooled(_ key: CipherKey, _ scheme: Scheme, encrypting: Bool, iv: [UInt8], _ input: [UInt8])
        -> [UInt8]? {
        var output = [UInt8](repeating: 0xEE, count: input.count + 32)
        let count: Int? = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { inBytes in
                iv.withUnsafeBytes { ivBytes in
                    key.pool(scheme, encrypting: encrypting).withContext {
                        $0.run(iv: ivBytes, input: inBytes, output: out, prefix: 0)
                    }
                }
            }
        }
        return count.map { Array(output.prefix($0)) }
    }

    @Test("pooled contexts give plain CBC for every length, IV and order",
          arguments: [Scheme.legacy, .acrh, .legacy33])
    func matchesPlainCBC(_ scheme: Scheme) throws {
        let key = try CipherKey("chained \(scheme)")
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for round in 0..<3 {
            for length in [1, 15, 16, 17, 31, 32, 33, 100, 255, 256, 1000, 4096] {
                let plaintext = (0..<length).map { _ in next() }
                let iv = (0..<16).map { _ in next() }
                let sealed = try #require(Self.pooled(key, scheme, encrypting: true, iv: iv, plaintext))
                #expect(sealed == Self.reference(key, scheme, encrypting: true, iv: iv, plaintext),
                        "round \(round), \(length) bytes")
                // Decrypting gives every block back, padding included (PKCS7.unpad removes it).
                let opened = try #require(Self.pooled(key, scheme, encrypting: false, iv: iv, sealed))
                #expect(opened == Self.reference(key, scheme, encrypting: false, iv: iv, sealed))
                let unpadded = opened.withUnsafeBytes { PKCS7.unpad($0) }
                #expect(unpadded.valid && Array(opened.prefix(unpadded.count)) == plaintext)
            }
            // A decryption the cipher refuses (not whole blocks) leaves the next message unharmed.
            #expect(Self.pooled(key, scheme, encrypting: false, iv: [UInt8](repeating: 1, count: 16),
                                [1, 2, 3]) == nil)
        }
    }

    @Test("the acrh header check (two word compares over contiguous bytes) agrees with the byte-by-byte one")
    func acrhHeaderCheck() {
        var header = CryptorHeader.acrhStart + [UInt8](repeating: 0xAB, count: 16) + [1, 2, 3]
        #expect(header.withUnsafeBytes { CryptorHeader.startsWithACRH($0) })
        #expect(CryptorHeader.startsWithACRH(header.lazy.map { $0 }))
        for index in 0..<CryptorHeader.acrhStart.count {
            header[index] ^= 0x01
            #expect(!header.withUnsafeBytes { CryptorHeader.startsWithACRH($0) }, "byte \(index)")
            #expect(!CryptorHeader.startsWithACRH(header.lazy.map { $0 }), "byte \(index)")
            header[index] ^= 0x01
        }
        #expect(!Array(header.prefix(25)).withUnsafeBytes { CryptorHeader.startsWithACRH($0) })
    }

    @Test("messages through the whole module still match the spec's fixed-IV vectors after many others")
    func vectorsAfterTraffic() throws {
        let module = try CryptoModule(cipherKey: "enigma")
        for i in 0..<50 {
            let text = Array("message \(i) \(String(repeating: "x", count: i))".utf8)
            #expect(try module.decryptBytes(module.encrypt(text, scheme: .acrh)) == text)
            #expect(try module.decryptBinary(module.encryptBinary(text, scheme: .acrh)) == text)
            #expect(try module.decryptBytes(module.encrypt(text, scheme: .legacy), reading: .only(.legacy)) == text)
        }
        // docs/formats.md section 7: "yay!" under legacy with the key enigma.
        #expect(try module.encrypt(Array("yay!".utf8), scheme: .legacy) == "q/xJqqN6qbiZMXYmiQC1Fw==")
        #expect(try module.decryptBytes("q/xJqqN6qbiZMXYmiQC1Fw==", reading: .only(.legacy)) == Array("yay!".utf8))
    }

    /// Plain CBC through `start(iv:)`, then `update` over `input` cut at `cuts` (offsets), then `finish`.
    static func inPieces(_ key: CipherKey, _ scheme: Scheme, encrypting: Bool, iv: [UInt8], _ input: [UInt8],
                         cuts: [Int]) -> [UInt8]? {
        let context = key.pool(scheme, encrypting: encrypting).makeContext()
        var output = [UInt8](repeating: 0, count: input.count + 16 * (cuts.count + 2))
        let count: Int? = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { inBytes in
                guard iv.withUnsafeBytes({ context.start(iv: $0) }) else { return nil }
                var written = 0
                var from = 0
                for cut in cuts + [input.count] {
                    guard let n = context.update(UnsafeRawBufferPointer(rebasing: inBytes[from..<cut]),
                                                 into: out.baseAddress! + written) else { return nil }
                    written += n
                    from = cut
                }
                return context.finish(into: out.baseAddress! + written).map { written + $0 }
            }
        }
        return count.map { Array(output.prefix($0)) }
    }

    /// Streams hand a context pieces of any size: a backend that keeps a partial block (swift-crypto's has no
    /// context of its own) must give the bytes of one piece, whatever the cuts.
    @Test("a context fed in pieces of any size gives the bytes of one piece", arguments: [Scheme.acrh, .legacy33])
    func piecesOfAnySize(_ scheme: Scheme) throws {
        let key = try CipherKey("pieces \(scheme)")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % bound
        }
        for length in [0, 1, 15, 16, 17, 47, 48, 100, 1000] {
            let plaintext = (0..<length).map { _ in UInt8(next(256)) }
            let iv = (0..<16).map { _ in UInt8(next(256)) }
            let whole = try #require(Self.reference(key, scheme, encrypting: true, iv: iv, plaintext))
            for _ in 0..<20 {
                let cuts = length == 0 ? [0, 0] : (0..<next(6)).map { _ in next(length + 1) }.sorted()
                #expect(Self.inPieces(key, scheme, encrypting: true, iv: iv, plaintext, cuts: cuts) == whole,
                        "encrypting \(length) bytes cut at \(cuts)")
                let sealedCuts = (0..<next(6)).map { _ in next(whole.count + 1) }.sorted()
                let opened = try #require(Self.inPieces(key, scheme, encrypting: false, iv: iv, whole,
                                                        cuts: sealedCuts))
                #expect(opened == plaintext + [UInt8](repeating: UInt8(whole.count - length),
                                                      count: whole.count - length),
                        "decrypting \(whole.count) bytes cut at \(sealedCuts)")
            }
        }
        // Decrypting a length that is not whole blocks fails at `finish`, as with OpenSSL (padding off).
        #expect(Self.inPieces(key, scheme, encrypting: false, iv: [UInt8](repeating: 0, count: 16),
                              [UInt8](repeating: 1, count: 33), cuts: [5]) == nil)
    }
}
