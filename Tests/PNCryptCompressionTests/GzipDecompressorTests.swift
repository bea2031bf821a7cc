import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptCompression
import PNCryptTestSupport
import PNCryptBase

/// `Decompressor`: formats, members, every corrupt case with its exact error, output limits, bombs.
@Suite("Decompressor")
struct GzipDecompressorTests {
    typealias Support = CompressionTestSupport

    static let sinkFailed = PNCryptError(.io, "sink failed")

    static let text = Support.sampleText(count: 50_000)

    /// Decompresses `input` fed in chunks of `chunk` bytes through the streaming API.
    func inflate(_ input: [UInt8], format: CompressionFormat = .gzipOrZlib, chunk: Int = .max,
                 limit: DecompressionLimit = .unlimited, outputChunkSize: Int = Compressor.defaultChunkSize)
        throws -> [UInt8] {
        let decompressor = try Decompressor(format: format, outputLimit: limit, chunkSize: outputChunkSize)
        var output: [UInt8] = []
        var offset = 0
        while offset < input.count {
            let end = offset + min(chunk, input.count - offset)
            try decompressor.update(input[offset..<end]) { output.append(contentsOf: $0) }
            offset = end
        }
        try decompressor.finish()
        return output
    }

    func zlibCompress(_ input: [UInt8]) throws -> [UInt8] {
        try Support.python("import sys,zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read(), 6))",
                           input: input)
    }

    func rawCompress(_ input: [UInt8]) throws -> [UInt8] {
        let program = "import sys,zlib; c=zlib.compressobj(6, zlib.DEFLATED, -15); "
            + "sys.stdout.buffer.write(c.compress(sys.stdin.buffer.read())+c.flush())"
        return try Support.python(program, input: input)
    }

    // MARK: Members and chunking

    @Test("any chunking of concatenated members gives the same output", arguments: [1, 2, 3, 17, 4096, Int.max])
    func chunking(chunk: Int) throws {
        let parts = [Array(Self.text.prefix(3000)), [], Support.noise(count: 2000), Array("z".utf8)]
        let packed = try parts.flatMap { try Compressor.compress($0) }
        let expected = parts.flatMap { $0 }
        #expect(try inflate(packed, chunk: chunk) == expected)
        #expect(try inflate(packed, format: .gzip, chunk: chunk) == expected)
    }

    @Test("output pieces are at most chunkSize bytes")
    func outputPieceSize() throws {
        let packed = try Compressor.compress(Self.text)
        let decompressor = try Decompressor(chunkSize: 1000)
        var total = 0
        try decompressor.update(packed) { piece in
            #expect(piece.count <= 1000 && piece.count > 0)
            total += piece.count
        }
        try decompressor.finish()
        #expect(total == Self.text.count)
        #expect(decompressor.bytesOut == UInt64(Self.text.count))
        #expect(decompressor.bytesIn == UInt64(packed.count))
    }

    @Test("zlib and raw deflate stream in chunks; zlib is never multi-member", arguments: [1, 1000])
    func zlibAndRaw(chunk: Int) throws {
        let zlibData = try zlibCompress(Self.text)
        let rawData = try rawCompress(Self.text)
        #expect(try inflate(zlibData, chunk: chunk) == Self.text)
        #expect(try inflate(zlibData, format: .zlib, chunk: chunk) == Self.text)
        #expect(try inflate(rawData, format: .rawDeflate, chunk: chunk) == Self.text)
        let error = expectPNError(.corruptCompressedData,
                                        "trailing garbage after zlib stream at offset \(zlibData.count)") {
            _ = try inflate(zlibData + zlibData, chunk: chunk)
        }
        #expect(error?.offset == zlibData.count)
    }

    @Test("empty members and empty zlib/raw streams decompress to nothing")
    func emptyStreams() throws {
        #expect(try inflate(try Compressor.compress([UInt8]()) + Compressor.compress([UInt8]())) == [])
        #expect(try inflate(try zlibCompress([]), format: .zlib) == [])
        #expect(try inflate(try rawCompress([]), format: .rawDeflate) == [])
    }

    // MARK: Corrupt input

    @Test("truncation anywhere is reported by finish with the input length", arguments: [1, 4, 8, 9, 30, 1000])
    func truncated(cut: Int) throws {
        let packed = try Compressor.compress(Self.text)
        let input = Array(packed.dropLast(cut))
        let error = expectPNError(.corruptCompressedData, "gzip data is truncated") {
            _ = try inflate(input)
        }
        #expect(error?.offset == input.count)
    }

    @Test("truncated header, zlib and raw streams")
    func truncatedOtherFormats() throws {
        expectPNError(.corruptCompressedData, "gzip data is truncated") {
            _ = try inflate([0x1f, 0x8b, 0x08, 0x00, 0x00])
        }
        // 0x1f can only start gzip (as zlib it would name compression method 15).
        expectPNError(.corruptCompressedData, "gzip data is truncated") {
            _ = try inflate([0x1f])
        }
        // 0x78 starts a zlib header (32 KiB window, deflate).
        expectPNError(.corruptCompressedData, "zlib data is truncated") {
            _ = try inflate([0x78])
        }
        expectPNError(.corruptCompressedData, "zlib data is truncated") {
            _ = try inflate(Array(try zlibCompress(Self.text).dropLast(2)))
        }
        expectPNError(.corruptCompressedData, "deflate data is truncated") {
            _ = try inflate(Array(try rawCompress(Self.text).dropLast(2)), format: .rawDeflate)
        }
    }

    @Test("a bad CRC-32 or ISIZE in the trailer")
    func badTrailer() throws {
        let packed = try Compressor.compress(Self.text)
        var badCRC = packed
        badCRC[packed.count - 8] ^= 0x01
        var error = expectPNError(.corruptCompressedData, "gzip CRC mismatch") { _ = try inflate(badCRC) }
        #expect(error?.offset == packed.count - 4)
        var badSize = packed
        badSize[packed.count - 1] ^= 0x80
        error = expectPNError(.corruptCompressedData, "gzip ISIZE (length) mismatch") {
            _ = try inflate(badSize)
        }
        #expect(error?.offset == packed.count)
        var zlibData = try zlibCompress(Self.text)
        zlibData[zlibData.count - 1] ^= 0x01
        expectPNError(.corruptCompressedData, "zlib Adler-32 checksum mismatch") { _ = try inflate(zlibData) }
    }

    @Test("a corrupt second member names where that member starts")
    func corruptSecondMember() throws {
        let first = try Compressor.compress(Array("first".utf8))
        var second = try Compressor.compress(Array("second".utf8))
        second[second.count - 6] ^= 0xff
        expectPNError(.corruptCompressedData, "gzip CRC mismatch in the member at offset \(first.count)") {
            _ = try inflate(first + second)
        }
    }

    @Test("trailing bytes after the last gzip member, fed whole or byte by byte", arguments: [1, Int.max])
    func trailingGarbage(chunk: Int) throws {
        let packed = try Compressor.compress(Self.text)
        let message = "trailing garbage after gzip member at offset \(packed.count)"
        for tail in [Array("xyz".utf8), [0x00], [0x00, 0x00, 0x00, 0x00], [0x1f, 0x00], [0x1f, 0x8c, 0x08]] {
            let error = expectPNError(.corruptCompressedData, message) {
                _ = try inflate(packed + tail, chunk: chunk)
            }
            #expect(error?.offset == packed.count)
        }
        // A lone 0x1f could start a member that never came: truncated, as gzip -d says.
        let error = expectPNError(.corruptCompressedData, "gzip data is truncated") {
            _ = try inflate(packed + [0x1f], chunk: chunk)
        }
        #expect(error?.offset == packed.count + 1)
        // A raw deflate stream followed by anything.
        let raw = try rawCompress(Self.text)
        expectPNError(.corruptCompressedData, "trailing garbage after deflate stream at offset \(raw.count)") {
            _ = try inflate(raw + [0x00], format: .rawDeflate, chunk: chunk)
        }
    }

    @Test("data of the wrong format is refused at its header")
    func wrongFormat() throws {
        let plain = Array("{\"text\":\"hello\"}".utf8)
        let gzipData = try Compressor.compress(plain)
        let zlibData = try zlibCompress(plain)
        let cases: [([UInt8], CompressionFormat, String)] = [
            (plain, .gzipOrZlib, "not gzip or zlib data: incorrect header check"),
            (plain, .gzip, "not gzip data: incorrect header check"),
            (plain, .zlib, "not zlib data: incorrect header check"),
            (zlibData, .gzip, "not gzip data: incorrect header check"),
            (gzipData, .zlib, "not zlib data: incorrect header check"),
            ([0x1f, 0x8b, 0x07, 0, 0, 0, 0, 0, 0, 3], .gzip, "corrupt gzip data: unknown compression method"),
            // A valid header, then a block of the reserved type 3.
            (Array(gzipData.prefix(10)) + [0x07, 0x00], .gzipOrZlib, "corrupt gzip data: invalid block type"),
            (gzipData, .rawDeflate, "corrupt deflate data: invalid block type"),
        ]
        for (input, format, message) in cases {
            expectPNError(.corruptCompressedData, message) { _ = try inflate(input, format: format) }
        }
    }

    @Test("zlib data that needs a preset dictionary is refused")
    func presetDictionary() throws {
        let program = "import sys,zlib; c=zlib.compressobj(6, zlib.DEFLATED, 15, 8, 0, b'{\\\"text\\\":'); "
            + "sys.stdout.buffer.write(c.compress(sys.stdin.buffer.read())+c.flush())"
        let data = try Support.python(program, input: Array("{\"text\":\"hello\"}".utf8))
        #expect(data[1] & 0x20 != 0)  // FDICT
        let error = expectPNError(.corruptCompressedData,
                                        "zlib data needs a preset dictionary, which is not supported") {
            _ = try inflate(data, format: .zlib)
        }
        #expect(error?.offset == 6)  // the two header bytes and the four-byte DICTID
    }

    @Test("after an error every call repeats it")
    func errorsAreSticky() throws {
        let decompressor = try Decompressor()
        let first = expectPNError(.corruptCompressedData, "not gzip or zlib data: incorrect header check") {
            try decompressor.update(Array("nope".utf8)) { _ in }
        }
        let again = expectPNError(.corruptCompressedData, "not gzip or zlib data: incorrect header check") {
            try decompressor.update(try Compressor.compress([1])) { _ in }
        }
        #expect(first == again)
        expectPNError(.corruptCompressedData, "not gzip or zlib data: incorrect header check") {
            try decompressor.finish()
        }
    }

    @Test("finish is final")
    func finishIsFinal() throws {
        let decompressor = try Decompressor()
        try decompressor.update(try Compressor.compress([1, 2])) { _ in }
        try decompressor.finish()
        expectPNError(.invalidValue, "the decompressor has already finished") { try decompressor.finish() }
        expectPNError(.invalidValue, "the decompressor has already finished") {
            try decompressor.update([0x1f, 0x8b]) { _ in }
        }
    }

    @Test("an output closure error reaches the caller and stops the decompressor")
    func outputErrorPropagates() throws {
        let decompressor = try Decompressor()
        #expect(throws: Self.sinkFailed) {
            let packed = try Compressor.compress(Self.text)
            try decompressor.update(packed) { (_) throws(PNCryptError) in throw Self.sinkFailed }
        }
        // The sink's error stops the decompressor: every later call repeats it.
        let error = expectPNError(.io, "sink failed") {
            try decompressor.finish()
        }
        #expect(error?.category == .io)
    }

    @Test("a negative limit or chunk size is refused")
    func invalidArguments() {
        expectPNError(.invalidValue, "output limit must not be negative, got -1") {
            _ = try Decompressor(outputLimit: -1)
        }
        expectPNError(.invalidValue, "output limit must not be negative, got \(Int.min)") {
            _ = try Decompressor.decompress([], outputLimit: .bytes(.min))
        }
        expectPNError(.invalidValue, "chunk size must be positive, got 0") {
            _ = try Decompressor(chunkSize: 0)
        }
    }

    // MARK: Output limit and bombs

    @Test("the limit allows exactly its size and refuses one byte more", arguments: [0, 1, 4095, 65_536, 65_537])
    func limitBoundary(limit: Int) throws {
        let exact = try Compressor.compress([UInt8](repeating: 7, count: limit))
        #expect(try inflate(exact, limit: .bytes(limit)).count == limit)
        let over = try Compressor.compress([UInt8](repeating: 7, count: limit + 1))
        let decompressor = try Decompressor(outputLimit: .bytes(limit), chunkSize: 4096)
        var handedOut = 0
        let error = expectPNError(.outputLimitExceeded,
                                        "decompressed data is larger than the limit of \(limit) byte"
                                            + (limit == 1 ? "" : "s")) {
            try decompressor.update(over) { handedOut += $0.count }
        }
        #expect(error?.category == .compression)
        #expect(handedOut <= limit)
        #expect(decompressor.bytesOut == UInt64(handedOut))
    }

    @Test("the limit counts over all members")
    func limitAcrossMembers() throws {
        let member = try Compressor.compress([UInt8](repeating: 1, count: 1000))
        #expect(try inflate(member + member + member, limit: 3000).count == 3000)
        expectPNError(.outputLimitExceeded, "decompressed data is larger than the limit of 2999 bytes") {
            _ = try inflate(member + member + member, limit: 2999)
        }
    }

    /// 10 GiB of zeros as 10,240 gzip members of 1 MiB each: a valid gzip file (`gzip -d` would write 10 GiB),
    /// ~10 MB, built in milliseconds from one compressed member.
    static func multiMemberBomb(mebibytes: Int) throws -> [UInt8] {
        let member = try Compressor.compress([UInt8](repeating: 0, count: 1 << 20), level: 9)
        var bomb: [UInt8] = []
        bomb.reserveCapacity(member.count * mebibytes)
        for _ in 0..<mebibytes { bomb += member }
        return bomb
    }

    /// One gzip member of zeros with no trailer: the first 1 MiB block, then the same sync-flushed 1 MiB block
    /// repeated. Every repeat decodes to 1 MiB of zeros because the 32 KiB window before it holds only zeros.
    static func singleMemberBomb(mebibytes: Int) throws -> [UInt8] {
        let compressor = try Compressor(level: 9)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var head = try compressor.update(zeros)
        try compressor.flush { head.append(contentsOf: $0) }
        var block = try compressor.update(zeros)
        try compressor.flush { block.append(contentsOf: $0) }
        var bomb = head
        bomb.reserveCapacity(head.count + block.count * (mebibytes - 1))
        for _ in 1..<mebibytes { bomb += block }
        return bomb
    }

    @Test("the single-member bomb construction decodes to zeros (and has no trailer)")
    func singleMemberBombIsWhatItClaims() throws {
        let bomb = try Self.singleMemberBomb(mebibytes: 5)
        let decompressor = try Decompressor(format: .gzip)
        var zeros = 0
        var nonZero = 0
        try decompressor.update(bomb) { piece in
            for byte in piece { if byte == 0 { zeros += 1 } else { nonZero += 1 } }
        }
        #expect(zeros == 5 << 20 && nonZero == 0)
        expectPNError(.corruptCompressedData, "gzip data is truncated") { try decompressor.finish() }
    }

    @Test("a 10 GiB multi-member zero bomb is refused at the 64 MiB default limit, having read about 1% of it",
          .tags(.stress), .notInQuickRun)
    func multiMemberBombRefused() throws {
        let bomb = try Self.multiMemberBomb(mebibytes: 10 * 1024)
        #expect(bomb.count < 12_000_000)
        let error = expectPNError(.outputLimitExceeded,
                                        "decompressed data is larger than the limit of 67108864 bytes") {
            _ = try Decompressor.decompress(bomb)
        }
        // Stopping at once: the limit is 1/160 of the output, so about that share of the input was read.
        #expect(error.map { $0.offset! < bomb.count / 100 } == true, "stopped at \(error?.offset ?? -1)")
    }

    @Test("a 1 GiB single-member zero bomb is refused by the streaming API without holding output",
          .tags(.stress), .notInQuickRun)
    func singleMemberBombRefused() throws {
        let bomb = try Self.singleMemberBomb(mebibytes: 1024)
        let decompressor = try Decompressor(outputLimit: .bytes(100 << 20))
        var handedOut = 0
        let error = expectPNError(.outputLimitExceeded,
                                        "decompressed data is larger than the limit of 104857600 bytes") {
            // Fed in 64 KiB chunks as from a socket; the output is counted and dropped.
            var offset = 0
            while offset < bomb.count {
                let end = min(bomb.count, offset + 65_536)
                try decompressor.update(bomb[offset..<end]) { handedOut += $0.count }
                offset = end
            }
        }
        #expect(handedOut <= 100 << 20 && handedOut > 99 << 20)
        #expect(error.map { $0.offset! < bomb.count / 5 } == true)
    }

    // MARK: Bounded by default

    @Test("the streaming default limit is a documented 1 GiB; unlimited is explicit")
    func streamingDefaultLimit() throws {
        #expect(Decompressor.defaultStreamOutputLimit == 1 << 30)
        #expect(try Decompressor().outputLimit == .bytes(1 << 30))
        #expect(try Decompressor(outputLimit: .unlimited).outputLimit == .unlimited)
        #expect(try Decompressor(outputLimit: 5).outputLimit == .bytes(5))
        #expect(DecompressionLimit.bytes(1 << 30).description == "1073741824 bytes")
        #expect(DecompressionLimit.unlimited.byteCount == nil)
    }

    @Test("with no limit given, a 2 GiB bomb stops at 1 GiB, having read about half its input",
          .tags(.stress), .notInQuickRun)
    func streamingDefaultStopsBomb() throws {
        let bomb = try Self.multiMemberBomb(mebibytes: 2048)
        let decompressor = try Decompressor()
        var handedOut = 0
        let error = expectPNError(.outputLimitExceeded,
                                        "decompressed data is larger than the limit of 1073741824 bytes") {
            try decompressor.update(bomb) { handedOut += $0.count }
        }
        #expect(handedOut <= 1 << 30 && handedOut > (1 << 30) - (1 << 20))
        // Input consumed, not time: the limit is half the output, so about half the input was read.
        let offset = try #require(error?.offset)
        #expect(offset <= bomb.count / 2 + bomb.count / 1000 && offset >= bomb.count / 2 - bomb.count / 1000)
        #expect(decompressor.bytesIn == UInt64(offset))
    }

    @Test("streamed files default to the 1 GiB limit too", .tags(.stress), .notInQuickRun)
    func fileDefaultStopsBomb() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("bomb.gz")
        try Data(try Self.multiMemberBomb(mebibytes: 1025)).write(to: url)
        let input = try FileHandle(forReadingFrom: url)
        let output = try #require(FileHandle(forWritingAtPath: "/dev/null"))
        defer {
            try? input.close()
            try? output.close()
        }
        expectPNError(.outputLimitExceeded, "decompressed data is larger than the limit of 1073741824 bytes") {
            let stages: [any ByteStreamStage] = [try Decompressor()]
            try Descriptors.stream(from: input.fileDescriptor, to: output.fileDescriptor, update: stages.update,
                                   finish: stages.finish)
        }
    }
}
