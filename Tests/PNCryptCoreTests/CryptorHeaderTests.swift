import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

@Suite struct CryptorHeaderTests {
    let iv = (0..<16).map { UInt8($0) }

    @Test("writes the 26-byte ACRH header")
    func shortForm() throws {
        let header = try CryptorHeader(metadata: iv)
        let bytes = header.encoded()
        #expect(bytes.count == 26)
        #expect(header.encodedLength == 26)
        #expect(CryptorHeader.acrhLength == CryptorHeader.acrhStart.count + CryptorHeader.ivLength)
        #expect(bytes.starts(with: CryptorHeader.acrhStart) && CryptorHeader.startsWithACRH(bytes))
        #expect(Array(bytes[0..<10]) == [UInt8]("PNED") + [1] + [UInt8]("ACRH") + [16])
        #expect(Array(bytes[10...]) == iv)
        #expect(Base64.encode(bytes).hasPrefix("UE5FRAFBQ1JIE"))
        let parsed = try #require(try CryptorHeader.parse(bytes + [9, 9]))
        #expect(parsed.header == header)
        #expect(parsed.length == 26)
    }

    @Test("the message path writes the header's first 10 bytes as acrhStart, and only those")
    func writeACRHStart() {
        var buffer = [UInt8](repeating: 0xEE, count: 12)
        buffer.withUnsafeMutableBytes { CryptorHeader.writeACRHStart(to: $0.baseAddress!) }
        #expect(Array(buffer[0..<10]) == CryptorHeader.acrhStart)
        #expect(buffer[10...].allSatisfy { $0 == 0xEE })
    }

    @Test("writes and reads the 3-byte length form from 255 metadata bytes on", arguments: [255, 256, 1000, 65535])
    func longForm(length: Int) throws {
        let metadata = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        let header = try CryptorHeader(cryptorID: [UInt8]("TEST"), metadata: metadata)
        let bytes = header.encoded()
        #expect(bytes.count == 12 + length)
        #expect(Array(bytes[9..<12]) == [0xFF, UInt8(length >> 8), UInt8(length & 0xFF)])
        let parsed = try #require(try CryptorHeader.parse(bytes))
        #expect(parsed.header.metadata == metadata)
        #expect(parsed.header.cryptorID == [UInt8]("TEST"))
        #expect(parsed.length == bytes.count)
    }

    @Test("reads a 16-byte IV written in the 3-byte length form")
    func longFormForShortMetadata() throws {
        let bytes = [UInt8]("PNED") + [1] + [UInt8]("ACRH") + [0xFF, 0, 16] + iv
        let parsed = try #require(try CryptorHeader.parse(bytes))
        #expect(parsed.header.metadata == iv)
        #expect(parsed.length == 28)
    }

    @Test("is not a header without the PNED sentinel")
    func notAHeader() throws {
        #expect(try CryptorHeader.parse([UInt8]()) == nil)
        #expect(try CryptorHeader.parse([UInt8]("PNE")) == nil)
        #expect(try CryptorHeader.parse([UInt8]("PNEE\u{1}ACRH")) == nil)
    }

    @Test("startsWithSentinel is parse's first question, in one load or byte by byte")
    func startsWithSentinel() throws {
        let header = try CryptorHeader(metadata: iv).encoded()
        for bytes in [[UInt8](), [UInt8]("PNE"), [UInt8]("PNED"), [UInt8]("PNEE\u{1}ACRH"), [UInt8]("XNED"),
                      [UInt8]("pned1234"), header, [UInt8](repeating: 0x50, count: 40)] {
            let expected = bytes.count >= 4 && Array(bytes.prefix(4)) == CryptorHeader.sentinel
            #expect(CryptorHeader.startsWithSentinel(bytes) == expected, "\(bytes)")
            // Not contiguous: the byte-by-byte way.
            #expect(CryptorHeader.startsWithSentinel(bytes.lazy.map { $0 }) == expected, "\(bytes)")
        }
    }

    @Test("a header cut at every byte is malformed", arguments: 4..<26)
    func cutShort(at length: Int) throws {
        let bytes = Array(try CryptorHeader(metadata: iv).encoded().prefix(length))
        let error = expectPNError { () throws(PNCryptError) in try CryptorHeader.parse(bytes) }
        #expect(error?.code == .malformedHeader)
        #expect(error?.category == .decryption)
        #expect(error?.message.contains("cut short") == true)
    }

    @Test("0xFF length with its two bytes missing is malformed")
    func missingLongLength() {
        for extra in [[UInt8](), [0]] {
            let bytes = [UInt8]("PNED") + [1] + [UInt8]("ACRH") + [0xFF] + extra
            let error = expectPNError { () throws(PNCryptError) in try CryptorHeader.parse(bytes) }
            #expect(error?.code == .malformedHeader)
            #expect(error?.message.contains("0xFF") == true)
        }
    }

    @Test("an unsupported version is an unknown cryptor", arguments: [0, 2, 255] as [UInt8])
    func version(_ version: UInt8) {
        let bytes = [UInt8]("PNED") + [version] + [UInt8]("ACRH") + [16] + iv
        let error = expectPNError { () throws(PNCryptError) in try CryptorHeader.parse(bytes) }
        #expect(error?.code == .unknownCryptor)
        #expect(error?.offset == 4)
    }

    @Test("describes cryptor ids as text or hex")
    func idDescription() throws {
        #expect(try CryptorHeader(metadata: iv).cryptorIDDescription == "ACRH")
        #expect(try CryptorHeader(cryptorID: [0, 0, 0, 0], metadata: []).cryptorIDDescription == "00000000")
    }

    @Test("a cryptor id that is not 4 bytes, or metadata over 65,535 bytes, throws instead of trapping")
    func misuse() {
        #expect(expectPNError { () throws(PNCryptError) in try CryptorHeader(cryptorID: [1, 2, 3], metadata: []) }?
            .code == .invalidValue)
        #expect(expectPNError { () throws(PNCryptError) in
            try CryptorHeader(metadata: [UInt8](repeating: 0, count: 65_536))
        }?.code == .invalidValue)
    }
}
