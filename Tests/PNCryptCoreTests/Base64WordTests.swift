import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

/// Base64 moves 6 bytes to 8 characters (and back) per step: held to Foundation's Base64, at every length and
/// with a bad character at every position around the steps.
@Suite struct Base64WordTests {
    @Test("encodes and decodes as Foundation does, every length up to 200")
    func matchesFoundation() throws {
        let bytes = (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 17) }
        for n in 0...200 {
            let slice = Array(bytes.prefix(n))
            let expected = Data(slice).base64EncodedString()
            #expect(Base64.encode(slice) == expected, "\(n) bytes")
            #expect(try Base64.decode(expected) == slice, "\(n) bytes")
            #expect(try Base64.decode("\"" + expected + "\"") == slice)
        }
    }

    @Test("a stray character is refused at its own offset wherever it sits")
    func strayCharacterEverywhere() throws {
        let text = Array(Data((0..<60).map { UInt8($0) }).base64EncodedString().utf8)  // 80 characters
        for position in 0..<text.count {
            var bad = text
            bad[position] = UInt8(ascii: "-")
            let error = expectPNError { () throws(PNCryptError) in try Base64.decode(bad) }
            #expect(error?.code == .notBase64)
            #expect(error?.offset == position, "\(position): \(error?.message ?? "")")
            // A line break there is skipped (old clients wrapped lines), wherever it sits.
            var wrapped = text
            wrapped.insert(UInt8(ascii: "\n"), at: position)
            #expect(try Base64.decode(wrapped) == Base64.decode(text), "\(position)")
        }
    }

    @Test("every byte outside the alphabet is refused at its own offset, in and around the 16-character passes")
    func everyStrayByteEverywhere() throws {
        let bytes = (0..<60).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 5) }
        let text = Array(Data(bytes).base64EncodedString().utf8)  // 80 characters
        // Whitespace is trimmed at the ends and line breaks are skipped; `=` has its own rules (`rejects`).
        let strays = (0...255).map(UInt8.init).filter { !Base64.isCharacter($0) && !isSpace($0) }
        for position in 0..<40 {
            for stray in strays {
                var bad = text
                bad[position] = stray
                let error = expectPNError { () throws(PNCryptError) in try Base64.decode(bad) }
                #expect(error?.code == .notBase64 && error?.offset == position,
                        "\(stray) at \(position): \(error?.message ?? "decoded")")
            }
        }
    }

    @Test("random bytes of every length up to 64 round-trip, with line breaks allowed or not")
    func randomRoundTrip() throws {
        var random = SystemRandomNumberGenerator()
        for n in 0...64 {
            for _ in 0..<20 {
                let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &random) }
                let text = Base64.encodeBytes(bytes)
                #expect(text == Array(Data(bytes).base64EncodedString().utf8))
                let decoded = try text.withUnsafeBytes { input in
                    try [UInt8](unsafeUninitializedCapacity: Base64.maximumDecodedCount(n * 2 + 4)) { out, count in
                        count = try Base64.decode(input, into: UnsafeMutableRawPointer(out.baseAddress!),
                                                  lineBreaks: false)
                    }
                }
                #expect(decoded == bytes, "\(bytes)")
            }
        }
    }
}
