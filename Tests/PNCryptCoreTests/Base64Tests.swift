import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

@Suite struct Base64Tests {
    @Test("encodes with padding, matching RFC 4648 test vectors")
    func rfc4648() throws {
        let cases = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
                     "foobar": "Zm9vYmFy"]
        for (plain, encoded) in cases {
            #expect(Base64.encode([UInt8](plain)) == encoded)
            #expect(try Base64.decode(encoded) == [UInt8](plain))
        }
    }

    @Test("isCharacter accepts exactly the alphabet and '=' among all 256 byte values")
    func isCharacterEveryByte() {
        let accepted = Set(Base64.alphabet + [UInt8(ascii: "=")])
        for byte in UInt8.min...UInt8.max {
            #expect(Base64.isCharacter(byte) == accepted.contains(byte), "\(byte)")
            #expect(Base64.isCharacter(byte) == (Base64.decodeTable[Int(byte)] < 64 || byte == UInt8(ascii: "=")))
        }
    }

    @Test("round-trips every byte value and every length up to 100")
    func roundTrip() throws {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        for n in 0...100 {
            let slice = Array(bytes.prefix(n))
            #expect(try Base64.decode(Base64.encode(slice)) == slice)
        }
    }

    @Test("accepts surrounding whitespace, surrounding JSON quotes and line breaks inside")
    func lenientInput() throws {
        let expected = try Base64.decode("q/xJqqN6qbiZMXYmiQC1Fw==")
        for text in ["  q/xJqqN6qbiZMXYmiQC1Fw==\n", "\"q/xJqqN6qbiZMXYmiQC1Fw==\"", "q/xJqqN6\nqbiZMXYm\r\niQC1Fw==",
                     "\t\"q/xJqqN6qbiZMXYmiQC1Fw==\" \r\n"] {
            #expect(try Base64.decode(text) == expected)
        }
    }

    @Test("rejects what is not Base64, naming the offset")
    func rejects() {
        let cases: [(String, Int, String)] = [
            ("q/xJ-qN6", 4, "URL-safe"),
            ("q/xJ qN6", 4, "unexpected space"),
            ("q/x", 3, "left over"),
            ("q/xJq===", 5, "misplaced '='"),
            ("Zg==Zg==", 4, "after '=' padding"),
            ("Zm9=v", 4, "after '=' padding"),
            ("é", 0, "byte 0xc3"),
            ("\"\"x", 0, "character '\"'"),
        ]
        for (text, offset, words) in cases {
            let error = expectPNError { () throws(PNCryptError) in try Base64.decode(text) }
            #expect(error?.code == .notBase64, "\(text)")
            #expect(error?.offset == offset, "\(text): \(error?.message ?? "")")
            #expect(error?.message.contains(words) == true, "\(text): \(error?.message ?? "")")
        }
    }
}
