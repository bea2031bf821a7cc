import PNCryptBase
import PNCryptCore

/// What follows the one decryption failure in every shell (the CLI's `hint:` line, the C library's error message,
/// Python's exceptions): what the caller can change, decided here once. A hint depends only on what the caller gave
/// (the keys' shape, a key that is also a file's name, the input's encoding and length), never on which check
/// failed, so every failure of the same keys and input gets the same words (docs/security.md, "One public
/// failure").
public enum FailureHint {
    /// One key as a shell got it, for `keys(_:)`.
    public struct Key: Sendable {
        /// The key, exactly as given.
        public var key: CipherKey
        /// Where it came from, as the shell names it (`--key`, `--key-file old.key`, `key #2`).
        public var source: String
        /// Its text also names an existing file: a path given where the key itself goes. The shell looks (the
        /// library does no I/O); false when it cannot.
        public var namesFile: Bool

        /// A key and where it came from.
        public init(_ key: CipherKey, source: String, namesFile: Bool = false) {
            self.key = key
            self.source = source
            self.namesFile = namesFile
        }
    }

    /// What one key's shape suggests, nil for an ordinary key: a byte order mark, white space at either end, a line
    /// break (`CipherKey.shapeHint`), or a key that is also a file's name. Such keys are still used exactly as
    /// given.
    public static func shape(of key: CipherKey, namesFile: Bool = false) -> String? {
        if let shape = key.shapeHint { return shape }
        return namesFile ? "the key is also the name of a file (the key is that text, not the file's contents)" : nil
    }

    /// The keys' hint (`source: what its shape suggests`, joined), nil when no key has an unusual shape.
    public static func keys(_ keys: [Key]) -> String? {
        let shapes = keys.compactMap { key in
            shape(of: key.key, namesFile: key.namesFile).map { "\(key.source): \($0)" }
        }
        return shapes.isEmpty ? nil : shapes.joined(separator: "; ") + " (keys are used exactly as given)"
    }

    /// The longest message PubNub carries (32 KiB, the publish limit): a ciphertext longer than this is a file's.
    public static let messageLimit = 32 * 1024

    /// Whether a text decryption that failed should say that a binary plaintext is read as bytes: when a binary
    /// plaintext is plausible from what was given alone, the input raw ciphertext bytes (a file an SDK's
    /// `encrypt_file` wrote) or a ciphertext longer than any message (`messageLimit`), and no key's shape is the
    /// likelier cause (`keyHint` nil). Not for a message-sized Base64 text, where a wrong key is the usual cause.
    public static func binaryPlaintextPlausible(raw: Bool, ciphertextCount: Int, keyHint: String?) -> Bool {
        keyHint == nil && (raw || ciphertextCount > messageLimit)
    }
}
