import PNCrypt
import PNCryptPlatform

// Keys are exact: every key source hands over the bytes it was given, and `CipherKey(bytes:)` refuses those that
// are not valid UTF-8. Swift's `CommandLine.arguments` and `ProcessInfo.environment` decode lossily (a byte that is
// not UTF-8 becomes U+FFFD, so `\xff` and `\xfe` would be one key): the values are read from the process's own
// argv and environ instead (`RawArguments`, Options/RawArguments.swift, which does the same for paths).

/// One key as given: its bytes and where it came from (named in messages; the key itself never is).
struct GivenKey {
    var bytes: [UInt8]
    var source: String

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

/// The keys used for reading in this run and what their shape suggests (`CipherKey.shapeHint`), for the one-line
/// hint that follows a decryption failure (`PNCryptCommand.report`). Written once, before any work, on the main
/// thread.
enum KeyShapeHints {
    nonisolated(unsafe) static var hints: [String] = []

    /// Records the hint of each key that has one.
    static func record(_ keys: [(CipherKey, String)]) {
        hints = keys.compactMap { key, source in key.shapeHint.map { "\(source): \($0)" } }
    }

    /// The hint line, nil when no key has an unusual shape.
    static var line: String? {
        hints.isEmpty ? nil : "hint: " + hints.joined(separator: "; ") + " (keys are used exactly as given)"
    }
}
