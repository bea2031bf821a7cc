import Testing
import PNCryptJSON
import PNCryptCompression
import PNCryptTestSupport
import PNCryptBase

/// `Compressor`: chunked compression, flush, finish, output piece sizes.
@Suite("Compressor")
struct GzipCompressorTests {
    typealias Support = CompressionTestSupport

    static let sinkFailed = PNCryptError(.io, "sink failed")

    @Test("chunked input at every level decompresses to the input", arguments: 0...9)
    func chunkedRoundTrip(level: Int) throws {
        let input = Support.sampleText(count: 200_000) + Support.noise(count: 30_000)
        let compressor = try Compressor(level: level, chunkSize: 4096)
        var packed: [UInt8] = []
        var largestPiece = 0
        var offset = 0
        var step = 1
        while offset < input.count {
            let end = min(input.count, offset + step)
            try compressor.update(input[offset..<end]) { piece in
                largestPiece = max(largestPiece, piece.count)
                packed.append(contentsOf: piece)
            }
            offset = end
            step = step * 3 + 1  // 1, 4, 13, 40, ... uneven chunk sizes
        }
        try compressor.finish { packed.append(contentsOf: $0) }
        #expect(largestPiece <= 4096)
        #expect(compressor.bytesIn == UInt64(input.count))
        #expect(compressor.bytesOut == UInt64(packed.count))
        #expect(try Decompressor.decompress(packed) == input)
    }

    @Test("an output chunk size of one byte still works")
    func tinyOutputChunks() throws {
        let input = Support.sampleText(count: 5000)
        let compressor = try Compressor(chunkSize: 1)
        var packed: [UInt8] = []
        try compressor.update(input) { piece in
            #expect(piece.count == 1)
            packed.append(contentsOf: piece)
        }
        try compressor.finish { packed.append(contentsOf: $0) }
        #expect(try Decompressor.decompress(packed) == input)
    }

    @Test("array-returning update and finish give a valid member")
    func arrayAPI() throws {
        let compressor = try Compressor(level: 9)
        var packed: [UInt8] = []
        for part in ["{\"a\":", "\"b\"", "}"] { packed += try compressor.update(Array(part.utf8)) }
        packed += try compressor.finish()
        #expect(try Decompressor.decompress(packed) == Array("{\"a\":\"b\"}".utf8))
        #expect(compressor.level == 9)
    }

    @Test("flush makes everything so far decompressible while the member stays open")
    func flushEmitsPendingOutput() throws {
        let compressor = try Compressor()
        let decompressor = try Decompressor(format: .gzip)
        var received: [UInt8] = []
        var sent: [UInt8] = []
        for round in 0..<3 {
            let part = Support.sampleText(count: 1000, seed: UInt64(round + 1))
            sent += part
            var packed: [UInt8] = []
            try compressor.update(part) { packed.append(contentsOf: $0) }
            try compressor.flush { packed.append(contentsOf: $0) }
            #expect(Array(packed.suffix(4)) == [0x00, 0x00, 0xff, 0xff])  // the sync marker
            try decompressor.update(packed) { received.append(contentsOf: $0) }
            #expect(received == sent)
        }
        try decompressor.update(try compressor.finish()) { received.append(contentsOf: $0) }
        try decompressor.finish()
        #expect(received == sent)
    }

    @Test("empty input and empty chunks give the empty member")
    func emptyInput() throws {
        let compressor = try Compressor()
        var packed: [UInt8] = []
        try compressor.update(UnsafeRawBufferPointer(start: nil, count: 0)) { packed.append(contentsOf: $0) }
        try compressor.update([UInt8]()) { packed.append(contentsOf: $0) }
        try compressor.finish { packed.append(contentsOf: $0) }
        #expect(packed == (try Compressor.compress([UInt8]())))
    }

    @Test("nothing can be done after finish")
    func finishIsFinal() throws {
        let compressor = try Compressor()
        _ = try compressor.finish()
        expectPNError(.invalidValue, "the gzip compressor has already finished") {
            _ = try compressor.finish()
        }
        expectPNError(.invalidValue, "the gzip compressor has already finished") {
            _ = try compressor.update([1, 2, 3])
        }
        expectPNError(.invalidValue, "the gzip compressor has already finished") {
            try compressor.flush { _ in }
        }
    }

    @Test("an error thrown by the output closure reaches the caller")
    func outputErrorPropagates() throws {
        let compressor = try Compressor(chunkSize: 1024)
        #expect(throws: Self.sinkFailed) {
            try compressor.update(Support.noise(count: 10_000)) { (_) throws(PNCryptError) in throw Self.sinkFailed }
        }
        expectPNError(.invalidValue, "the gzip compressor stopped after an output error: sink failed") {
            _ = try compressor.finish()
        }
    }

    @Test("a chunk size below one is refused", arguments: [0, -1])
    func invalidChunkSize(chunkSize: Int) {
        expectPNError(.invalidValue, "chunk size must be positive, got \(chunkSize)") {
            _ = try Compressor(chunkSize: chunkSize)
        }
    }
}
