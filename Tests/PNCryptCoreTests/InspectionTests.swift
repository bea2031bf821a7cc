import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

@Suite struct InspectionTests {
    @Test("reads header fields without a key")
    func header() throws {
        let data = try Base64.decode(try Package.specCiphertext("spec-acrh-mycipherkey-zero-iv"))
        let inspection = try Inspection(data)
        #expect(inspection.header?.cryptorID == [UInt8]("ACRH"))
        #expect(inspection.headerLength == 26)
        #expect(inspection.blocks == 2)
        #expect(inspection.lines == [
            "PNED header: version 1, cryptor ACRH, metadata 16 bytes (header 26 bytes)",
            "iv: 00000000000000000000000000000000",
            "ciphertext: 32 bytes, 2 blocks",
        ])
    }

    @Test("counts legacy blocks")
    func legacy() throws {
        let inspection = try Inspection(try Base64.decode(try Package.specCiphertext("spec-legacy-random-iv-yay")))
        #expect(inspection.header == nil)
        let first = "no PNED header; if this is pncrypt or PubNub ciphertext it is legacy data, 2 blocks, "
            + "IV fixed or random"
        #expect(inspection.lines.first == first)
        #expect(inspection.lines.last?.contains("differ only at the start") == true)
    }

    @Test("says why data cannot be ciphertext")
    func notCiphertext() {
        #expect(expectPNError { () throws(PNCryptError) in try Inspection([UInt8](repeating: 1, count: 17)) }?
            .message.contains("not a whole number") == true)
        #expect(expectPNError { () throws(PNCryptError) in try Inspection([UInt8]("PNED\u{1}AC")) }?
            .code == .malformedHeader)
    }
}
