import Testing
import PNCryptCore
import PNCryptBase
import PNCryptTestSupport

/// The vector forms of the core's byte loops (`ByteVectors`, the C target CPNCryptSIMD) against the Swift loops they
/// stand in for and against the standard library: the same answer and the same bytes, at every offset of their
/// 16-byte blocks. The Swift loops stay tested too: every test here and the UTF-8 tests of `DecisionTests` run both
/// paths where this CPU has the vectors.
@Suite struct ByteVectorsTests {
    /// The paths a test runs: the Swift loops always, the vector loops where this CPU has them.
    static let paths: [Bool] = ByteVectors.available ? [false, true] : [false]

    @Test("x86-64 runs the vector loops (every x86-64 CPU since 2006 has SSSE3), so CI tests them")
    func availableOnX86() {
        #if arch(x86_64)
        #expect(ByteVectors.available)
        #else
        #expect(!ByteVectors.available)
        #endif
    }

    /// Bytes drawn mostly from the ones UTF-8's rules turn on: ASCII, each edge of the continuation range and of
    /// each lead's second-byte range, and the bytes that never appear.
    static let utf8Edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                     0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]

    @Test("the UTF-8 checks, whole and split, agree with the standard library on 200,000 texts of edge bytes")
    func utf8EdgeTexts() {
        var random = SeededRandom(seed: 0xC0FFEE)
        let text = Array(String(repeating: "añ漢😀x", count: 20).utf8)
        for n in 0..<200_000 {
            let count = Int(random.next() % 81)
            var bytes: [UInt8]
            if n % 2 == 0 {
                // Valid text with one byte replaced by an edge byte: mostly one error, at any offset.
                let start = Int(random.next() % 10)
                bytes = Array(text[start..<(start + count)])
                if count > 0 { bytes[Int(random.next() % UInt64(count))] = Self.utf8Edges[Int(random.next() % 25)] }
            } else {
                bytes = (0..<count).map { _ in Self.utf8Edges[Int(random.next() % 25)] }
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            // The two-reading form too: the pairs' split (16), the block's other multiples, and one between them.
            let split = [0, 16, 16, 32, 48, 5][n % 6]
            let tail = String(validating: bytes.dropFirst(split), as: UTF8.self) != nil
            for vectors in Self.paths {
                let got = bytes.withUnsafeBytes { Decision.isValidUTF8InFull($0, vectors: vectors) }
                if got != expected { Issue.record("\(bytes), vectors \(vectors): \(got), not \(expected)") }
                let pair = bytes.withUnsafeBytes { Decision.isValidUTF8InFull($0, split: split, vectors: vectors) }
                if pair != (expected, tail) {
                    Issue.record("\(bytes), split \(split), vectors \(vectors): \(pair), not \((expected, tail))")
                }
            }
        }
    }

    @Test("Base64's whole-group decoding reads the same characters and writes the same bytes on both paths",
          arguments: [0, 1, 2])
    func decodeGroupsBothPaths(stray: Int) {
        // `stray` 0: alphabet only; 1: one other byte at a random offset; 2: one of every byte value in turn.
        var random = SeededRandom(seed: 0xBA5E + UInt64(stray))
        for n in 0..<20_000 {
            let count = Int(random.next() % 90)
            var text = (0..<count).map { _ in Base64.alphabet[Int(random.next() % 64)] }
            if stray > 0 && count > 0 {
                text[Int(random.next() % UInt64(count))] = stray == 1 ? UInt8(truncatingIfNeeded: random.next())
                    : UInt8(truncatingIfNeeded: n)
            }
            let room = Base64.maximumDecodedCount(count) + Int(random.next() % 20)
            var results: [(read: Int, written: Int, bytes: [UInt8])] = []
            for vectors in Self.paths {
                var out = [UInt8](repeating: 0xEE, count: room)
                let (read, written) = text.withUnsafeBufferPointer { p in
                    out.withUnsafeMutableBytes { o in
                        Base64.decodeGroups(p.baseAddress!, count, into: o.baseAddress!, room: room, vectors: vectors)
                    }
                }
                #expect(read % 4 == 0 && written == read / 4 * 3 && written <= room)
                results.append((read, written, Array(out[..<written])))
            }
            // Both read every whole group before the first stray byte; the Swift loops are the reference.
            let reference = results[0]
            let firstStray = text.firstIndex { Base64.decodeTable[Int($0)] >= 64 } ?? count
            #expect(reference.read == firstStray / 4 * 4, "\(text)")
            for result in results.dropFirst() {
                #expect(result.read == reference.read && result.bytes == reference.bytes, "\(text)")
            }
        }
    }

    @Test("Base64 encoding writes the same characters on both paths, at every length up to 100")
    func encodeBothPaths() throws {
        var random = SeededRandom(seed: 0xE4C0DE)
        for count in 0...100 {
            for _ in 0..<50 {
                let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                var outputs: [[UInt8]] = []
                for vectors in Self.paths {
                    var out = [UInt8](repeating: 0, count: Base64.encodedCount(count))
                    bytes.withUnsafeBytes { input in
                        out.withUnsafeMutableBytes { Base64.encode(input, into: $0.baseAddress!, vectors: vectors) }
                    }
                    outputs.append(out)
                    #expect(try Base64.decode(out) == bytes)
                }
                #expect(Set(outputs).count == 1, "\(bytes)")
            }
        }
    }
}
