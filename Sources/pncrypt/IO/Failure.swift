import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// The exit statuses of pncrypt, from sysexits.h; README and docs/cli.md ("Exit status") and `pncrypt --help` list
/// them.
/// 0 is `ExitCode.success`; a signal N that ends a run exits 128 + N (`SignalCleanup`).
extension ExitCode {
    /// 1: the data could not be encrypted, decrypted or decompressed (wrong key, corrupt, not Base64, empty,
    /// unknown cryptor, over `--max-size`, ambiguous), or `diagnose` found no reading, or a vector failed.
    static let dataFailure = ExitCode.failure
    /// 64 (EX_USAGE): bad usage: unknown or conflicting options, a bad value, no key.
    static let usage = ExitCode.validationFailure
    /// 65 (EX_DATAERR): input JSON that does not parse.
    static let badJSON = ExitCode(65)
    /// 66 (EX_NOINPUT): an input file or key file that does not exist or cannot be opened.
    static let noInput = ExitCode(66)
    /// 73 (EX_CANTCREAT): the output file cannot be created (a missing folder, a directory, no permission).
    static let cannotCreate = ExitCode(73)
    /// 74 (EX_IOERR): another I/O error (a read or write that fails, a full disk).
    static let ioError = ExitCode(74)
}

/// A failure of a run: one line for standard error and the exit status. Commands throw it (or a `PNCryptError`,
/// or ArgumentParser's errors); `PNCryptCommand.main` is the one place that prints and exits.
struct CLIFailure: Error {
    var code: ExitCode
    var message: String
    /// A decryption failed: the report adds the keys' shape hint, if any (`KeyShapeHints`).
    var decryption: Bool
    /// A line the report adds after the message, `hint: ...`: what the caller can change. A hint after the one
    /// decryption failure depends only on what the caller gave (the key's shape, the input's encoding), never on
    /// which check failed (docs/security.md, "One public failure").
    var hint: String?

    init(_ code: ExitCode, _ message: String, decryption: Bool = false, hint: String? = nil) {
        self.code = code
        self.message = message
        self.decryption = decryption
        self.hint = hint
    }

    /// A library error: its SDK category first (as PubNub's contract scenarios name the outcomes), then what was
    /// wrong, and for an ambiguous reading the flags that decide; over a decompression limit, the option that
    /// raises it.
    init(_ error: PNCryptError) {
        let prefix = switch error.category {
        case .encryption: "encryption error: "
        case .decryption: "decryption error: "
        case .unknownCryptor: "unknown cryptor: "
        default: ""
        }
        let hint = error.code != .ambiguous ? ""
            : Decision.isHeaderlessPairAmbiguity(error)
            ? " (--scheme legacy or --scheme legacy-random-iv; --legacy-scheme does the same and still reads a PNED"
                + " header; for a message, pncrypt message decrypt)"
            : " (give only the key that is right, or choose the scheme with --scheme or --legacy-scheme)"
        let code: ExitCode = switch error.category {
        case .encryption, .decryption, .unknownCryptor, .compression: .dataFailure
        case .json: .badJSON
        case .invalidArgument: .usage
        case .io: error.code == .fileNotFound ? .noInput : .ioError
        }
        // Every CLI path that decompresses takes --max-size (gunzip, decrypt --binary --gunzip, gzip input to
        // --lines: LimitOptions).
        let limit = error.code == .outputLimitExceeded
            ? "; raise it with --max-size SIZE (or --max-size none for trusted data)" : ""
        self.init(code, prefix + error.message + hint + limit, decryption: error.category == .decryption)
    }

    /// This failure with `hint` (nil: as it is).
    func hinted(_ hint: String?) -> CLIFailure {
        var failure = self
        if let hint { failure.hint = hint }
        return failure
    }
}

enum CLI {
    /// One line on standard error that is not a failure: `pncrypt: note: ...`.
    static func note(_ text: String) {
        printError("note: " + text)
    }

    /// One line on standard error about something the user should look at: `pncrypt: warning: ...`.
    static func warning(_ text: String) {
        printError("warning: " + text)
    }

    /// The one way a message reaches standard error: `pncrypt: ` + `text` + newline. Messages name paths, file
    /// names and arguments that someone else may have chosen (a file planted in a shared folder, named with an
    /// escape sequence): on a terminal every control character in `text` (ESC, BEL, CR, newline, tab, DEL, C1, bytes
    /// that are not UTF-8) shows as `\xNN`, as in decrypted text, so the message stays one line and cannot command
    /// the terminal. `layout` keeps newline and tab (ArgumentParser's usage text). Pipes and files get the text as
    /// it is.
    static func printError(_ text: String, layout: Bool = false) {
        var bytes = Array(text.utf8)
        if isatty(STDERR_FILENO) == 1 { bytes = TerminalEscaper.escaped(bytes, layout: layout) }
        try? FileDescriptor.standardError.writeAll(Array("pncrypt: ".utf8) + bytes + [0x0A], naming: "standard error")
    }
}

extension CLIFailure {
    /// An input that could not be opened or read, or an output that could not be opened or put in place: 66 when
    /// the input is missing or cannot be opened, 73 when the output cannot be created, 64 over the input file,
    /// else 74.
    init(_ error: FileError) {
        let code: ExitCode = switch error.kind {
        case .missing, .cannotOpen: .noInput
        case .cannotCreate, .notRegular: .cannotCreate
        case .sameAsInput: .usage
        case .io: .ioError
        }
        self.init(code, error.message)
    }
}
