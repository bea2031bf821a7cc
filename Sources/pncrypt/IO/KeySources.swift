import PNCrypt
import PNCryptFiles
import PNCryptPlatform

// Keys are exact: every key source hands over the bytes it was given, and `CipherKey(bytes:)` refuses those that
// are not valid UTF-8. Swift's `CommandLine.arguments` and `ProcessInfo.environment` decode lossily (a byte that is
// not UTF-8 becomes U+FFFD, so `\xff` and `\xfe` would be one key): the values are read from the process's own
// argv and environ instead (`RawArguments`, Options/RawArguments.swift, which does the same for paths).

/// One key as given: its bytes and where it came from (named in messages; the key itself never is).
struct GivenKey {
    var bytes: [UInt8]
    var source: String
    /// Read from a file (its contents are the key), not given as text.
    var fromFile = false

    /// The key as `FailureHint` takes it, for the hint after a decryption failure: a key given as text that also
    /// names an existing file is said to (`InputFiles.namesRegularFile`).
    func hintKey(_ key: CipherKey) -> FailureHint.Key {
        FailureHint.Key(key, source: source, namesFile: !fromFile && InputFiles.namesRegularFile(bytes))
    }

    /// The cipher key, or a usage failure (exit 64) naming the source when the bytes are not a key (not UTF-8,
    /// empty).
    func cipherKey() throws -> CipherKey {
        do {
            return try CipherKey(bytes: bytes)
        } catch {
            throw CLIFailure(.usage, "\(source): \(error.message)")
        }
    }

    /// Overwrites the bytes (the key is secret).
    mutating func wipe() {
        PNCryptBase.wipe(&bytes)
    }
}

/// The keys used for reading in this run and what their shape suggests (the library's `FailureHint`, as every
/// shell words it), for the one-line hint that follows a decryption failure (`PNCryptCommand.report`). Written
/// once, before any work, on the main thread.
enum KeyShapeHints {
    nonisolated(unsafe) static var hints: [String] = []
    nonisolated(unsafe) static var keys: [FailureHint.Key] = []

    /// Records the hint of each key that has one.
    static func record(_ keys: [FailureHint.Key]) {
        self.keys = keys
        hints = keys.compactMap { key in
            FailureHint.shape(of: key.key, namesFile: key.namesFile).map { "\(key.source): \($0)" }
        }
    }

    /// The hint line, nil when no key has an unusual shape.
    static var line: String? {
        FailureHint.keys(keys).map { "hint: " + $0 }
    }
}
