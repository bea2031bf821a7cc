import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// Moves one received message to a new key and scheme (key rotation, or off the fixed-IV legacy scheme).
///
/// ```swift
/// let rekey = try MessageRekey(from: KeyRing(["enigma", "older-key"]), to: CipherKey("new-key"))
/// switch rekey.rekey(jsonText: Array(#""06UDjczkvAAYcqWfNwkOiQ==""#.utf8)) {   // "Hello World", legacy
/// case .rekeyed(let line): print(String(decoding: line, as: UTF8.self))   // "UE5FRAFBQ1JI...", acrh
/// case .alreadyNew: break                                                // left as it is
/// case .unchanged(let error): print(error)                               // passed through
/// }
/// ```
///
/// The message is read as `message decrypt` reads it (a JSON string of Base64), with every old key and, for data
/// without a `PNED` header, both legacy readings unless `reading` says which one; the new key is tried as well,
/// in the new scheme. A reading qualifies when its padding is valid and its plaintext is UTF-8 JSON text, and the
/// message is taken only when exactly one reading qualifies (the trust rules of `KeyRing`):
/// - the new key in the new scheme: the message is already new and is left as it is (so a rerun changes nothing);
/// - any other reading: the plaintext, byte for byte, is encrypted again under the new key and scheme;
/// - none, or several: the message is left unchanged, with the one public decryption failure as the reason.
public struct MessageRekey: Sendable {
    /// The keys messages may be encrypted with now (any order; the new key may be among them).
    package let from: KeyRing
    /// How data without a `PNED` header is read: `.headerlessAs(.legacy)`, `.headerlessAs(.legacyRandomIV)`, or
    /// `.rule` for both (the message is then taken only when exactly one reading qualifies).
    package let reading: ReadPolicy
    /// The key messages are moved to.
    package let to: CipherKey
    /// The scheme messages are moved to: `acrh` (the default), `legacy` or `legacyRandomIV`.
    package let scheme: Scheme

    /// The old keys that are not the new one, then the new key (the last, at `newIndex`).
    private let ring: KeyRing
    private let newIndex: Int

    /// What happened to one message.
    public enum Outcome: Hashable, Sendable {
        /// Encrypted again: the new wire JSON, `"<Base64>"`.
        case rekeyed([UInt8])
        /// Already readable with the new key in the new scheme (and in no other way): left as it is.
        case alreadyNew
        /// Not decryptable with certainty (or not a message at all): left as it is, for the reason given.
        case unchanged(PNCryptError)
    }

    /// A rekeying from the keys of `from` to `to` in `scheme`.
    /// - Throws: `invalidValue` for `legacy33` as the target, a `reading` other than `.rule` or `.headerlessAs` a
    ///   legacy cryptor (`legacy`, `legacyRandomIV`: a header is always read), or one that would hide messages
    ///   already in a legacy target scheme.
    public init(from: KeyRing, reading: ReadPolicy = .rule, to: CipherKey, scheme: Scheme = .defaultForWriting)
        throws(PNCryptError) {
        guard scheme.row.message == .whole else {
            throw PNCryptError(.invalidValue, "\(scheme) is not a scheme to move messages to (use"
                               + " \(Scheme.defaultForWriting))")
        }
        if reading != .rule {
            guard let legacyScheme = reading.legacyScheme, legacyScheme.isLegacyCryptor else {
                // Reachable from the library only (the CLI's --legacy-scheme takes the legacy cryptors alone): name
                // the readings rekey takes in the API's own terms.
                let names = Scheme.allCases.filter(\.isLegacyCryptor).map { ".headerlessAs(\($0))" }
                let given = switch reading {
                case .rule: ".rule"
                case .headerlessAs(let scheme): ".headerlessAs(\(scheme))"
                case .only(let scheme): ".only(\(scheme))"
                case .anyOf(let list): "the list \(list)"
                }
                throw PNCryptError(.invalidValue, "rekey cannot read with \(given): it reads a PNED header by its"
                                   + " cryptor and headerless data by the rule (.rule, the default) or as one legacy"
                                   + " cryptor (" + names.joined(separator: " or ") + ")")
            }
            if !scheme.hasHeader && scheme != legacyScheme {
                throw PNCryptError(.invalidValue, "messages already in \(scheme) would not be recognised when"
                                   + " headerless data is read as \(legacyScheme)")
            }
        }
        self.from = from
        self.reading = reading
        self.to = to
        self.scheme = scheme
        let old = from.keys.filter { !$0.isSame(as: to) }
        ring = try KeyRing(keys: old + [to])
        newIndex = old.count
    }

    /// Rekeys one message given as its JSON text. Never throws: a message that cannot be moved is `unchanged`.
    public func rekey(jsonText: some Collection<UInt8>) -> Outcome {
        do throws(PNCryptError) {
            return rekey(try JSONValue(parsing: jsonText))
        } catch {
            return .unchanged(error)
        }
    }

    /// Rekeys one parsed message. Never throws: a message that cannot be moved is `unchanged`.
    public func rekey(_ message: JSONValue) -> Outcome {
        do throws(PNCryptError) {
            guard case .string(let text) = message else {
                throw PNCryptError(.notEncrypted, "the message is not a JSON string, so it cannot be ciphertext")
            }
            var match: KeyRing.Match
            do throws(PNCryptError) {
                match = try ring.decrypt(try Base64.decode(text), reading: reading, content: .message)
            } catch where error.code == .ambiguous {
                // As in message statuses: which readings qualified depends on the plaintext; do not tell.
                throw CryptoModule.decryptionFailed
            }
            defer { wipe(&match.plaintext) }
            if match.keyIndex == newIndex && match.scheme == scheme { return .alreadyNew }
            let sealed = try withBytes(match.plaintext) { (plain) throws(PNCryptError) in
                try ReadingCipher.sealToBase64(plain, with: to, scheme: scheme, iv: nil, quoted: true)
            }
            return .rekeyed(sealed)
        } catch {
            return .unchanged(error)
        }
    }
}
