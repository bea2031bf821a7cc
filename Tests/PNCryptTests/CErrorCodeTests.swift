import CPNCryptHeader
import Testing
@testable import CPNCrypt
import PNCryptBase

/// The C library's error codes (`ErrorCodes` in CSupport.swift) against include/pncrypt.h, read through the
/// header itself: every PNCryptError code maps to the constant the header documents for it.
@Suite("C error codes")
struct CErrorCodeTests {
    /// The header's constant for each code, by the name in its comment (`PNCRYPT_E_... /* name: ... */`).
    static let documented: [PNCryptError.Code: Int32] = [
        .emptyPlaintext: PNCRYPT_E_EMPTY_PLAINTEXT, .notEncryptable: PNCRYPT_E_NOT_ENCRYPTABLE,
        .encryptionFailed: PNCRYPT_E_ENCRYPTION_FAILED,
        .notBase64: PNCRYPT_E_NOT_BASE64, .wrongKeyOrCorrupt: PNCRYPT_E_WRONG_KEY_OR_CORRUPT,
        .malformedHeader: PNCRYPT_E_MALFORMED_HEADER, .notEncrypted: PNCRYPT_E_NOT_ENCRYPTED,
        .ambiguous: PNCRYPT_E_AMBIGUOUS,
        .unknownCryptor: PNCRYPT_E_UNKNOWN_CRYPTOR,
        .invalidKey: PNCRYPT_E_INVALID_KEY, .invalidIV: PNCRYPT_E_INVALID_IV, .invalidValue: PNCRYPT_E_INVALID_VALUE,
        .invalidJSON: PNCRYPT_E_INVALID_JSON, .jsonTooDeep: PNCRYPT_E_JSON_TOO_DEEP,
        .corruptCompressedData: PNCRYPT_E_CORRUPT_COMPRESSED, .outputLimitExceeded: PNCRYPT_E_OUTPUT_LIMIT,
        .io: PNCRYPT_E_IO, .fileNotFound: PNCRYPT_E_FILE_NOT_FOUND,
    ]

    @Test("the table above names every code PNCryptError has")
    func everyCodeIsDocumented() {
        let all = Set(PNCryptError.Code.Kind.allCases.map { PNCryptError.Code($0) })
        #expect(Set(Self.documented.keys) == all)
    }

    @Test("each code maps to the header's constant for it",
          arguments: PNCryptError.Code.Kind.allCases)
    func mapsToDocumentedCode(kind: PNCryptError.Code.Kind) {
        let code = PNCryptError.Code(kind)
        #expect(ErrorCodes.code(for: PNCryptError(code, "test")) == Self.documented[code], "\(code)")
        #expect(CFailure.from(PNCryptError(code, "test")).code == Self.documented[code], "\(code)")
    }

    @Test("the C layer's own codes are the header's")
    func shellCodes() {
        #expect(ErrorCodes.argument == PNCRYPT_E_ARGUMENT)
        #expect(ErrorCodes.noMemory == PNCRYPT_E_NOMEM)
        #expect(ErrorCodes.internalError == PNCRYPT_E_INTERNAL)
        #expect(ErrorCodes.fileNotFound == PNCRYPT_E_FILE_NOT_FOUND)
    }

    @Test("a code's stable name is its case name, and its category is the documented one")
    func namesAndCategories() {
        #expect(PNCryptError.Code.fileNotFound.name == "fileNotFound")
        #expect(PNCryptError.Code.fileNotFound.category == .io)
        #expect(PNCryptError.Code.ambiguous.category == .decryption)
        #expect(PNCryptError.Code.jsonTooDeep.category == .json)
    }
}
