import CPNCryptHeader
import Foundation
import Testing
@testable import CPNCrypt
import PNCryptBase
import PNCryptTestSupport

/// The C library takes its codes and `pncrypt_error` from include/pncrypt.h itself (`CPNCryptHeader`), so no number
/// can drift; what still can is which constant each PNCryptError code maps to. The header says it in the comment of
/// each constant (`PNCRYPT_E_... (-n) /* name: ... */`), and that is what is checked here.
@Suite("C error codes")
struct CErrorCodeTests {
    /// The header's constants whose comment starts with a PNCryptError code's name, by that name.
    static func documented() throws -> [String: Int32] {
        let header = try String(contentsOf: Package.root.appendingPathComponent("include/pncrypt.h"), encoding: .utf8)
        var result: [String: Int32] = [:]
        for line in header.split(separator: "\n") where line.hasPrefix("#define PNCRYPT_E_") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count >= 5, words[3] == "/*", let value = Int32(words[2].dropFirst().dropLast()) else {
                continue
            }
            let name = words[4].hasSuffix(":") ? String(words[4].dropLast()) : String(words[4])
            result[name] = value
        }
        return result
    }

    @Test("each code maps to the constant the header documents for it", arguments: PNCryptError.Code.Kind.allCases)
    func mapsToDocumentedCode(kind: PNCryptError.Code.Kind) throws {
        let documented = try Self.documented()
        let code = PNCryptError.Code(kind)
        #expect(documented[kind.rawValue] != nil, "include/pncrypt.h documents no constant for \(kind.rawValue)")
        #expect(ErrorCodes.code(for: PNCryptError(code, "test")) == documented[kind.rawValue], "\(code)")
        #expect(CFailure.from(PNCryptError(code, "test")).code == documented[kind.rawValue], "\(code)")
    }

    @Test("a failure is written into the header's pncrypt_error: one line, cut on a character, NUL-terminated")
    func recordIsTheHeadersStruct() {
        var record = pncrypt_error()
        let long = "line one\nthen " + String(repeating: "é", count: 200)
        let code = withUnsafeMutablePointer(to: &record) { pointer in
            ErrorRecord(pointer: UnsafeMutableRawPointer(pointer)).set(CFailure(PNCRYPT_E_INVALID_VALUE, long))
        }
        #expect(code == PNCRYPT_E_INVALID_VALUE && record.code == PNCRYPT_E_INVALID_VALUE)
        let text = withUnsafeBytes(of: record.message) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        #expect(text.utf8.count <= 255 && text.utf8.count >= 253)
        #expect(text.hasPrefix("line one then éé") && text.hasSuffix("é"))
        withUnsafeMutablePointer(to: &record) { ErrorRecord(pointer: UnsafeMutableRawPointer($0)).clear() }
        #expect(record.code == 0 && record.message.0 == 0)
    }

    @Test("a code's stable name is its case name, and its category is the documented one")
    func namesAndCategories() {
        #expect(PNCryptError.Code.fileNotFound.name == "fileNotFound")
        #expect(PNCryptError.Code.fileNotFound.category == .io)
        #expect(PNCryptError.Code.ambiguous.category == .decryption)
        #expect(PNCryptError.Code.jsonTooDeep.category == .json)
    }
}
