// How the C entry points report a failure: `CFailure` (a failure of the C layer itself, a PNCrypt error or a
// files-layer error, as the C interface reports it), the header's error codes (`ErrorCodes`: one exhaustive switch
// from `PNCryptError.Code`), and the caller's `pncrypt_error` record they are written into (`ErrorRecord`).
import CPNCryptHeader
import PNCrypt
import PNCryptFiles

/// A failure of the C layer itself, or a PNCrypt error, as the C interface reports it.
struct CFailure: Error {
    let code: Int32
    let message: String

    init(_ code: Int32, _ message: String) {
        self.code = code
        self.message = message
    }

    init(_ error: PNCryptError) {
        let hint = !Decision.isHeaderlessPairAmbiguity(error) ? "" : Self.headerlessSchemeHint
        self.init(ErrorCodes.code(for: error), error.message + hint)
    }

    /// What a C caller does when the headerless rule cannot tell the two legacy readings of a text apart (the
    /// Python binding puts its own calls in place of these). As bytes the rule always decides.
    static let headerlessSchemeHint = " (scheme \"legacy\" or \"legacy-random-iv\")"

    /// What a C caller does when a text function's plaintext is binary: the bytes function of the same call (the
    /// Python binding puts `text=False` in its place).
    static let binaryPlaintextHint = " (read as text: a binary plaintext needs pncrypt_decrypt or pncrypt_decrypt_many)"

    /// A files-layer failure: a missing input is `PNCRYPT_E_FILE_NOT_FOUND`; an output that is not a regular file
    /// (or names the input file) `PNCRYPT_E_ARGUMENT`; anything else `PNCRYPT_E_IO`.
    init(_ error: FileError) {
        let code = switch error.kind {
        case .missing: ErrorCodes.fileNotFound
        case .sameAsInput, .notRegular: ErrorCodes.argument
        case .cannotOpen, .cannotCreate, .io: ErrorCodes.io
        }
        self.init(code, error.message)
    }

    static func argument(_ message: String) -> CFailure { CFailure(ErrorCodes.argument, message) }

    /// The one decryption failure with the hint of `module`'s keys (`FailureHint.keys`: a key's shape, a key that
    /// names a file), as the CLI's `hint:` line says it; any other failure as it is. The hint depends only on the
    /// keys, so every failure with them gets the same words.
    func hinted(by module: CModule?) -> CFailure {
        guard code == PNCRYPT_E_WRONG_KEY_OR_CORRUPT, let hint = module?.keyHint else { return self }
        return CFailure(code, message + "; hint: " + hint)
    }

    /// Any error an entry point's body can throw, as the C interface reports it.
    static func from(_ error: any Error) -> CFailure {
        switch error {
        case let failure as CFailure: return failure
        case let error as PNCryptError: return CFailure(error)
        default: return CFailure(ErrorCodes.internalError, "unexpected error: \(error)")
        }
    }

    /// The code of any error an entry point's body can throw, without making its message (a batch's failed items
    /// after the first).
    static func code(of error: any Error) -> Int32 {
        switch error {
        case let failure as CFailure: return failure.code
        case let error as PNCryptError: return ErrorCodes.code(for: error)
        default: return ErrorCodes.internalError
        }
    }

    /// This failure for item `index` of a batch: the message starts with "item N: ".
    func item(_ index: Int) -> CFailure { CFailure(code, "item \(index): \(message)") }
}

/// The C layer's error codes: `include/pncrypt.h`'s `PNCRYPT_E_` constants, imported from it (`CPNCryptHeader`), so
/// no number is written twice. (`PNCRYPT_E_INVALID_UTF8`, -23, is retired: a plaintext that is not UTF-8 is
/// `wrongKeyOrCorrupt`.)
enum ErrorCodes {
    // The C interface's own codes (not PNCryptError's), by shorter names.
    static var argument: Int32 { PNCRYPT_E_ARGUMENT }
    static var noMemory: Int32 { PNCRYPT_E_NOMEM }
    static var io: Int32 { PNCRYPT_E_IO }
    static var fileNotFound: Int32 { PNCRYPT_E_FILE_NOT_FOUND }
    static var internalError: Int32 { PNCRYPT_E_INTERNAL }

    /// The constant of a PNCryptError.
    static func code(for error: PNCryptError) -> Int32 { code(for: error.code.kind) }

    /// The constant of each code. No `default`: a code added to PNCryptError does not build until it is placed
    /// here (and, when it needs a new constant, in include/pncrypt.h).
    static func code(for kind: PNCryptError.Code.Kind) -> Int32 {
        switch kind {
        case .emptyPlaintext: return PNCRYPT_E_EMPTY_PLAINTEXT
        case .notEncryptable: return PNCRYPT_E_NOT_ENCRYPTABLE
        case .encryptionFailed: return PNCRYPT_E_ENCRYPTION_FAILED
        case .notBase64: return PNCRYPT_E_NOT_BASE64
        case .wrongKeyOrCorrupt: return PNCRYPT_E_WRONG_KEY_OR_CORRUPT
        case .ambiguous: return PNCRYPT_E_AMBIGUOUS
        case .malformedHeader: return PNCRYPT_E_MALFORMED_HEADER
        case .notEncrypted: return PNCRYPT_E_NOT_ENCRYPTED
        case .unknownCryptor: return PNCRYPT_E_UNKNOWN_CRYPTOR
        case .invalidKey: return PNCRYPT_E_INVALID_KEY
        case .invalidIV: return PNCRYPT_E_INVALID_IV
        case .invalidValue: return PNCRYPT_E_INVALID_VALUE
        case .invalidJSON: return PNCRYPT_E_INVALID_JSON
        case .jsonTooDeep: return PNCRYPT_E_JSON_TOO_DEEP
        case .corruptCompressedData: return PNCRYPT_E_CORRUPT_COMPRESSED
        case .outputLimitExceeded: return PNCRYPT_E_OUTPUT_LIMIT
        case .io: return PNCRYPT_E_IO
        case .fileNotFound: return PNCRYPT_E_FILE_NOT_FOUND
        }
    }
}

/// The caller's `pncrypt_error *`, the header's struct (`CPNCryptHeader`): its fields by name, never by offset.
struct ErrorRecord {
    let pointer: UnsafeMutablePointer<pncrypt_error>?

    /// The record at `err` (a `pncrypt_error *` from C, or NULL).
    init(pointer err: UnsafeMutableRawPointer?) {
        pointer = err?.bindMemory(to: pncrypt_error.self, capacity: 1)
    }

    /// The bytes `message` holds, its terminating NUL included.
    static let messageCapacity = MemoryLayout.size(ofValue: pncrypt_error().message)

    /// Code 0, empty message.
    func clear() {
        guard let pointer else { return }
        pointer.pointee.code = 0
        pointer.pointee.message.0 = 0
    }

    /// Stores `failure` and returns its code: one line, at most 255 bytes, cut on a UTF-8 character boundary.
    @discardableResult
    func set(_ failure: CFailure) -> Int32 {
        guard let pointer else { return failure.code }
        pointer.pointee.code = failure.code
        var bytes = Array(failure.message.utf8.prefix(Self.messageCapacity - 1))
        if bytes.count == Self.messageCapacity - 1 {
            // Drop a character cut in half (continuation bytes are 10xxxxxx).
            var end = bytes.count
            while end > 0 && bytes[end - 1] & 0xC0 == 0x80 { end -= 1 }
            if end > 0 && bytes[end - 1] >= 0xC0 { end -= 1 }
            let lead = end < bytes.count ? bytes[end] : 0
            let width = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if bytes.count - end < width { bytes.removeSubrange(end...) }
        }
        for i in bytes.indices where bytes[i] == 0x0A || bytes[i] == 0x0D { bytes[i] = 0x20 }
        bytes.append(0)
        withUnsafeMutableBytes(of: &pointer.pointee.message) { message in
            message.copyBytes(from: bytes)
        }
        return failure.code
    }
}
