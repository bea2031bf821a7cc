import Testing
import PNCryptCore
import PNCryptTestSupport

@Suite("CipherKey from bytes: exact keys, never decoded lossily")
struct CipherKeyBytesTests {
    @Test("invalid UTF-8 is refused with the offset of the first bad byte; \\xff and \\xfe are not one key")
    func invalidUTF8Refused() throws {
        let cases: [([UInt8], Int)] = [([0xFF], 0), ([0xFE], 0), ([0x61, 0x62, 0xC3], 2), ([0x61, 0xED, 0xA0, 0x80], 1)]
        for (bytes, offset) in cases {
            do {
                _ = try CipherKey(bytes: bytes)
                Issue.record("\(bytes) was accepted")
            } catch {
                #expect(error.code == .invalidKey)
                #expect(error.offset == offset)
                #expect(error.message.contains("not valid UTF-8"))
            }
        }
    }

    @Test("valid UTF-8 bytes give the same key as the string")
    func validBytes() throws {
        let key = try CipherKey(bytes: Array("enigma é🙂".utf8))
        let same = try CipherKey("enigma é🙂")
        #expect(key.isSame(as: same))
        // Both keys stay alive while compared: `keyBytes` shares the storage a key wipes when it goes away.
        let fromString = try CipherKey("enigma é🙂")
        #expect(key.keyBytes(for: .acrh) == fromString.keyBytes(for: .acrh))
        withExtendedLifetime(fromString) {}
    }

    @Test("shape hints: BOM, white space at either end, inner line break; none for an ordinary key")
    func shapeHints() throws {
        #expect(try CipherKey("enigma").shapeHint == nil)
        #expect(try CipherKey("in side").shapeHint == nil)
        #expect(try CipherKey("\u{FEFF}enigma").shapeHint?.contains("byte order mark") == true)
        #expect(try CipherKey(" enigma").shapeHint?.contains("starts with white space") == true)
        #expect(try CipherKey("enigma ").shapeHint?.contains("ends with white space") == true)
        #expect(try CipherKey("enigma\n").shapeHint?.contains("ends with a line break") == true)
        #expect(try CipherKey("eni\ngma").shapeHint?.contains("contains a line break") == true)
    }
}
