import Testing
import PNCryptCompression
import PNCryptTestSupport

@Suite("CompressionFormat (Gzip detection)")
struct CompressionFormatTests {
    @Test("gzip magic with the deflate method is gzip")
    func detectsGzip() throws {
        #expect(CompressionFormat.detect([0x1f, 0x8b, 0x08, 0x00]) == .gzip)
        #expect(CompressionFormat.detect(try Compressor.compress([UInt8]())) == .gzip)
        // Gzip magic with another method byte is not deflate-compressed gzip.
        #expect(CompressionFormat.detect([0x1f, 0x8b, 0x07]) == nil)
        // Too short to tell.
        #expect(CompressionFormat.detect([0x1f, 0x8b]) == nil)
    }

    @Test("zlib headers at every level pass the CMF/FLG check", arguments: [
        [0x78, 0x01], [0x78, 0x5e], [0x78, 0x9c], [0x78, 0xda], [0x08, 0x1d], [0x68, 0x81],
    ] as [[UInt8]])
    func detectsZlib(header: [UInt8]) {
        #expect(CompressionFormat.detect(header + [0x03, 0x00]) == .zlib)
    }

    @Test("other bytes are neither", arguments: [
        [], [0x78], [0x78, 0x9d], [0x79, 0x9c], [0x88, 0x98], Array("\"abc\"".utf8), [0x00, 0x00],
    ] as [[UInt8]])
    func rejectsOthers(bytes: [UInt8]) {
        #expect(CompressionFormat.detect(bytes) == nil)
    }

    @Test("raw values are the names used on the command line")
    func rawValues() {
        #expect(CompressionFormat.allCases.map(\.rawValue) == ["gzip-or-zlib", "gzip", "zlib", "raw-deflate"])
        #expect(CompressionFormat(rawValue: "raw-deflate") == .rawDeflate)
    }
}
