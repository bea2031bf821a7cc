import Foundation
import Testing
import PNCryptCore
import PNCryptCompression
import PNCryptTestSupport

/// The one-shot `Compressor.compress` and `Decompressor.decompress`, files streamed through the stages, interop with
/// the system `gzip`.
@Suite("Gzip")
struct GzipTests {
    typealias Support = CompressionTestSupport

    @Test("one-shot round trip at every level", arguments: 0...9)
    func roundTrip(level: Int) throws {
        let input = Support.sampleText(count: 100_000)
        let packed = try Compressor.compress(input, level: level)
        #expect(Array(packed.prefix(3)) == [0x1f, 0x8b, 0x08])
        if level == 0 {
            #expect(packed.count > input.count)
        } else {
            // About 5 bits of entropy per byte: deflate gets close to 5/8.
            #expect(packed.count < input.count * 3 / 4)
        }
        #expect(try Decompressor.decompress(packed) == input)
        #expect(try Decompressor.decompress(packed, format: .gzip) == input)
    }

    @Test("the default level is 6 and gives the same bytes as level 6")
    func defaultLevel() throws {
        let input = Support.sampleText(count: 5000)
        #expect(Compressor.defaultLevel == 6)
        #expect(try Compressor.compress(input) == Compressor.compress(input, level: 6))
        #expect(try Compressor.compress(input, level: 1) != Compressor.compress(input, level: 9))
    }

    @Test("levels outside 0...9 are refused", arguments: [-1, 10, 100, Int.min])
    func invalidLevel(level: Int) {
        expectPNError(.invalidValue, "gzip compression level must be 0 through 9, got \(level)") {
            _ = try Compressor.compress([1, 2, 3], level: level)
        }
        expectPNError(.invalidValue, "gzip compression level must be 0 through 9, got \(level)") {
            _ = try Compressor(level: level)
        }
    }

    @Test("empty input compresses to a 20-byte member and back; empty compressed input is refused")
    func emptyInput() throws {
        let packed = try Compressor.compress([UInt8]())
        #expect(packed.count == 20)
        #expect(try Decompressor.decompress(packed) == [])
        // Gzip level 6 on no input: header (OS byte 3 = Unix), empty final block, CRC 0, ISIZE 0.
        #expect(packed == [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        for format in CompressionFormat.allCases {
            let name = format == .rawDeflate ? "deflate" : format == .gzipOrZlib ? "gzip or zlib" : format.rawValue
            let error = expectPNError(.corruptCompressedData, "\(name) data is empty") {
                _ = try Decompressor.decompress([UInt8](), format: format)
            }
            #expect(error?.offset == 0)
        }
    }

    @Test("one-shot accepts non-contiguous sequences")
    func nonContiguousInput() throws {
        let input = Support.sampleText(count: 3000)
        let packed = try Compressor.compress(input.lazy.map { $0 })
        #expect(try Decompressor.decompress(packed.lazy.map { $0 }) == input)
    }

    @Test("the one-shot default output limit is 64 MiB", .tags(.stress), .notInQuickRun)
    func defaultLimit() throws {
        #expect(Decompressor.defaultOutputLimit == 64 << 20)
        let exactly = try Compressor.compress([UInt8](repeating: 0, count: Decompressor.defaultOutputLimit))
        #expect(try Decompressor.decompress(exactly).count == Decompressor.defaultOutputLimit)
        let oneMore = try Compressor.compress([UInt8](repeating: 0, count: Decompressor.defaultOutputLimit + 1))
        expectPNError(.outputLimitExceeded, "decompressed data is larger than the limit of 67108864 bytes") {
            _ = try Decompressor.decompress(oneMore)
        }
        let unlimited = try Decompressor.decompress(oneMore, outputLimit: .unlimited)
        #expect(unlimited.count == Decompressor.defaultOutputLimit + 1)
    }

    @Test("a lying ISIZE trailer reserves at most 1 MiB with no limit, and at most the limit otherwise")
    func isizeReservation() throws {
        // 4 KiB of gzip-looking input whose trailer claims 4 GiB - 1 bytes of output.
        var input = [UInt8](repeating: 0, count: 4096)
        input[0] = 0x1f
        input[1] = 0x8b
        for i in input.count - 4..<input.count { input[i] = 0xff }
        func reserved(_ limit: DecompressionLimit) -> Int {
            input.withUnsafeBytes { Decompressor.expectedSize(of: $0, format: .gzipOrZlib, outputLimit: limit) }
        }
        #expect(reserved(.unlimited) == 1 << 20)
        #expect(reserved(.bytes(1000)) == 1000)
        #expect(reserved(.bytes(.max)) <= Decompressor.defaultOutputLimit)
        #expect(reserved(.bytes(1 << 30)) <= Decompressor.defaultOutputLimit)
    }

    // MARK: Interop with the system gzip

    @Test("our output passes gzip -t and gzip -dc restores it", arguments: [0, 1, 6, 9])
    func systemGzipReadsOurs(level: Int) throws {
        for input in [[], Array("\"hello\"".utf8), Support.sampleText(count: 300_000), Support.noise(count: 70_000)] {
            let packed = try Compressor.compress(input, level: level)
            _ = try Support.run("gzip", ["-t"], input: packed)
            #expect(try Support.run("gzip", ["-dc"], input: packed).stdout == input)
        }
    }

    @Test("gzip -c output decompresses through ours", arguments: ["-1", "-6", "-9"])
    func weReadSystemGzip(levelFlag: String) throws {
        for input in [[], Support.sampleText(count: 200_000), Support.noise(count: 50_000)] {
            let packed = try Support.run("gzip", ["-c", "-n", levelFlag], input: input).stdout
            #expect(try Decompressor.decompress(packed) == input)
            #expect(try Decompressor.decompress(packed, format: .gzip) == input)
        }
    }

    @Test("gzip output with a file name and several members decompresses like gzip -d")
    func systemGzipMultiMember() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let parts = [Support.sampleText(count: 40_000, seed: 1), [], Support.noise(count: 9_000), Array("end".utf8)]
        var joined: [UInt8] = []
        for (index, part) in parts.enumerated() {
            // With a file name in the header (FNAME), as `gzip file` writes it.
            let url = directory.appendingPathComponent("part\(index).txt")
            try Data(part).write(to: url)
            _ = try Support.run("gzip", ["-k", "-f", url.path])
            joined += [UInt8](try Data(contentsOf: url.appendingPathExtension("gz")))
        }
        let expected = parts.flatMap { $0 }
        #expect(try Support.run("gzip", ["-dc"], input: joined).stdout == expected)
        #expect(try Decompressor.decompress(joined) == expected)
        #expect(try Decompressor.decompress(joined, format: .gzip) == expected)
    }

    @Test("zlib and raw deflate from Python's zlib decompress in their formats")
    func pythonZlibFormats() throws {
        let input = Support.sampleText(count: 120_000)
        let read = "import sys,zlib; d=sys.stdin.buffer.read(); "
        let zlibData = try Support.python(read + "sys.stdout.buffer.write(zlib.compress(d, 9))", input: input)
        let rawProgram = "c=zlib.compressobj(6, zlib.DEFLATED, -15); sys.stdout.buffer.write(c.compress(d)+c.flush())"
        let rawData = try Support.python(read + rawProgram, input: input)
        #expect(CompressionFormat.detect(zlibData) == .zlib)
        #expect(try Decompressor.decompress(zlibData) == input)
        #expect(try Decompressor.decompress(zlibData, format: .zlib) == input)
        #expect(try Decompressor.decompress(rawData, format: .rawDeflate) == input)
        // Our gzip output read by Python's gzip module.
        let ours = try Compressor.compress(input)
        let gunzip = "import sys,gzip; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"
        #expect(try Support.python(gunzip, input: ours) == input)
    }

    @Test("a fixed raw deflate vector (a fixed-Huffman block) decompresses")
    func rawDeflateVector() throws {
        // zlib.compressobj(9, DEFLATED, -15) of b"hello hello hello hello\n".
        let raw: [UInt8] = [0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x27, 0xb9, 0x00]
        #expect(try Decompressor.decompress(raw, format: .rawDeflate) == Array("hello hello hello hello\n".utf8))
    }

    // MARK: Files (streamed through the gzip stages from descriptors, as the shells stream them)

    @Test("file to file streaming round trip, checked by the system gzip")
    func fileStreaming() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = Support.sampleText(count: 3_000_000) + Support.noise(count: 200_000)
        let plainURL = directory.appendingPathComponent("plain")
        let packedURL = directory.appendingPathComponent("packed.gz")
        let backURL = directory.appendingPathComponent("back")
        try Data(input).write(to: plainURL)
        _ = FileManager.default.createFile(atPath: packedURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: backURL.path, contents: nil)

        let compressor = try Compressor(level: 6, chunkSize: 100_000)
        var bytesRead: Int64 = 0
        try withDescriptors(plainURL, packedURL) { reader, writer in
            let stages: [any ByteStreamStage] = [compressor]
            try Descriptors.stream(from: reader, to: writer, chunkSize: 100_000, progress: { bytesRead = $0 },
                                   update: stages.update, finish: stages.finish)
        }
        let packed = [UInt8](try Data(contentsOf: packedURL))
        #expect(bytesRead == Int64(input.count))
        #expect(compressor.bytesIn == UInt64(input.count))
        #expect(compressor.bytesOut == UInt64(packed.count))
        _ = try Support.run("gzip", ["-t"], input: packed)
        #expect(try Support.run("gzip", ["-dc"], input: packed).stdout == input)

        let decompressor = try Decompressor()
        try withDescriptors(packedURL, backURL) { reader, writer in
            let stages: [any ByteStreamStage] = [decompressor]
            try Descriptors.stream(from: reader, to: writer, update: stages.update, finish: stages.finish)
        }
        #expect(decompressor.bytesIn == UInt64(packed.count))
        #expect(decompressor.bytesOut == UInt64(input.count))
        #expect([UInt8](try Data(contentsOf: backURL)) == input)
    }

    @Test("file decompression reports corrupt input and the output limit")
    func fileStreamingErrors() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let packed = try Compressor.compress(Support.sampleText(count: 500_000))
        let truncatedURL = directory.appendingPathComponent("truncated.gz")
        let fullURL = directory.appendingPathComponent("full.gz")
        let outURL = directory.appendingPathComponent("out")
        try Data(packed.dropLast(5)).write(to: truncatedURL)
        try Data(packed).write(to: fullURL)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        let error = expectPNError(.corruptCompressedData, "gzip data is truncated") {
            try withDescriptors(truncatedURL, outURL) {
                let stages: [any ByteStreamStage] = [try Decompressor()]
                try Descriptors.stream(from: $0, to: $1, update: stages.update, finish: stages.finish)
            }
        }
        #expect(error?.offset == packed.count - 5)
        expectPNError(.outputLimitExceeded, "decompressed data is larger than the limit of 1000 bytes") {
            try withDescriptors(fullURL, outURL) {
                let stages: [any ByteStreamStage] = [try Decompressor(outputLimit: 1000)]
                try Descriptors.stream(from: $0, to: $1, update: stages.update, finish: stages.finish)
            }
        }
    }

    /// Runs `body` with a descriptor reading `input` and one writing `output` (emptied first), then closes both.
    private func withDescriptors<R>(_ input: URL, _ output: URL, _ body: (Int32, Int32) throws -> R) throws -> R {
        let reader = try FileHandle(forReadingFrom: input)
        let writer = try FileHandle(forWritingTo: output)
        defer { try? reader.close(); try? writer.close() }
        try writer.truncate(atOffset: 0)
        return try body(reader.fileDescriptor, writer.fileDescriptor)
    }
}
