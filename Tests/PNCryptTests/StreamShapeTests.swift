import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptCompression
import PNCrypt
import PNCryptTestSupport

/// The one streaming shape: every public streaming type is a `ByteStreamStage` (`update(_:_:)`, `finish(_:)`), and
/// each takes any collection of bytes and hands back arrays the same way (`update(_:)`, `finish()`).
@Suite struct StreamShapeTests {
    static let iv = Array("0123456789012345".utf8)

    /// One of each streaming type, made afresh (a stage is used once), all deterministic.
    static func stages() throws -> [(String, any ByteStreamStage)] {
        let key = try CipherKey("enigma")
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy, reading: .only(.legacy))
        return [
            ("StreamEncryptor", try StreamEncryptor(key: key, scheme: .acrh, iv: iv)),
            ("TextStreamEncryptor", try TextStreamEncryptor(key: key, scheme: .acrh, iv: iv)),
            ("Base64StreamEncoder", Base64StreamEncoder()),
            ("Compressor", try Compressor(chunkSize: 1000)),
            ("MessageStream.Session", try MessageStream(.decrypt(crypto, policy: .marker), jobs: 1).makeSession()),
        ]
    }

    @Test("every stage gives the same output through a sink, from slices, and as arrays")
    func sameOutput() throws {
        let input = CompressionTestSupport.sampleText(count: 20_000)
        for ((name, viaSink), (_, viaArrays)) in zip(try Self.stages(), try Self.stages()) {
            var sunk: [UInt8] = []
            var offset = 0
            while offset < input.count {  // slices: the collection form lends their storage
                let end = min(input.count, offset + 4321)
                try viaSink.update(input[offset..<end]) { sunk.append(contentsOf: $0) }
                offset = end
            }
            try viaSink.finish { sunk.append(contentsOf: $0) }
            let arrays = try viaArrays.update(input) + viaArrays.finish()
            #expect(!arrays.isEmpty, "\(name)")
            #expect(arrays == sunk, "\(name)")
        }
    }

    @Test("the decompressor and decryptor read back what the stages above wrote, in the same shape")
    func readBack() throws {
        let input = CompressionTestSupport.sampleText(count: 20_000)
        let key = try CipherKey("enigma")
        let compressor = try Compressor()
        let gzip = try compressor.update(input) + compressor.finish()
        let decompressor = try Decompressor()
        #expect(try decompressor.update(gzip) + decompressor.finish() == input)
        let encryptor = try StreamEncryptor(key: key, scheme: .acrh)
        let sealed = try encryptor.update(input) + encryptor.finish()
        let decryptor = try StreamDecryptor(key: key, reading: .only(.acrh))
        #expect(try decryptor.update(sealed) + decryptor.finish() == input)
    }

    @Test("finish is final in the array form too")
    func finishIsFinal() throws {
        let compressor = try Compressor()
        _ = try compressor.finish()
        #expect(throws: PNCryptError.self) { try compressor.finish() }
        let decompressor = try Decompressor()
        #expect(throws: PNCryptError.self) { try decompressor.finish() }  // empty input: not gzip data
    }
}
