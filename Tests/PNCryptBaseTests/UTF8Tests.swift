import PNCryptBase
import PNCryptTestSupport
import Testing

/// The one UTF-8 check (`isValidUTF8`, `firstInvalidUTF8`, `UTF8StreamValidator`) against the standard library's
/// `String(validating:as:)`: every boundary of RFC 3629 (overlong forms, surrogates, above U+10FFFF, cut
/// sequences), at every position of an 8-byte word, and random bytes cut into random chunks.
@Suite struct UTF8Tests {
    /// Sequences at each edge of RFC 3629, valid and not.
    static let edges: [[UInt8]] = [
        [0x7F], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
        [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xF0, 0x8F, 0xBF, 0xBF],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xC2], [0xE0, 0xA0], [0xF0, 0x90, 0x80],
    ]

    static func reference(_ bytes: [UInt8]) -> Bool { String(validating: bytes, as: UTF8.self) != nil }

    static func firstInvalid(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { firstInvalidUTF8(in: $0) }
    }

    @Test("each edge sequence, at every offset of a word, after ASCII and before it: the standard library's verdict")
    func edgesAtEveryOffset() {
        for edge in Self.edges {
            for before in 0..<9 {
                let bytes = [UInt8](repeating: 0x61, count: before) + edge + [UInt8](repeating: 0x62, count: 9)
                let expected = Self.reference(bytes)
                #expect(bytes.withUnsafeBytes { isValidUTF8($0) } == expected, "\(edge) after \(before)")
                #expect((Self.firstInvalid(bytes) == nil) == expected, "\(edge) after \(before)")
                if !expected { #expect(Self.firstInvalid(bytes) == before, "\(edge) after \(before)") }
            }
        }
    }

    @Test("random bytes, whole and in random chunks: one verdict, the standard library's")
    func randomChunks() {
        var random = SeededRandom(seed: 3629)
        var invalid = 0
        for _ in 0..<4000 {
            let count = Int.random(in: 0...40, using: &random)
            // Mostly valid text with a few random bytes, so that both verdicts are common.
            var bytes = Array(String(repeating: "é€😀a", count: count / 4 + 1).utf8.prefix(count))
            if Bool.random(using: &random), !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            let expected = Self.reference(bytes)
            if !expected { invalid += 1 }
            #expect(bytes.withUnsafeBytes { isValidUTF8($0) } == expected, "\(bytes)")
            var stream = UTF8StreamValidator()
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Int.random(in: 1...5, using: &random))
                bytes[start..<end].withUnsafeBytes { stream.update($0) }
                start = end
            }
            #expect(stream.finish() == expected, "\(bytes) in chunks")
        }
        #expect(invalid > 500 && invalid < 3500, "\(invalid) of 4000 invalid: the inputs test one verdict only")
    }
}
