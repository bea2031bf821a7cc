/// How a reader reads data (docs/formats.md section 1): which formats it accepts and the one rule for data without
/// a `PNED` header. Every reader takes one: `CryptoModule`, `KeyRing`, `StreamDecryptor`, `MessageCrypto`,
/// `MessageRekey`.
///
/// ```swift
/// let ring = try KeyRing(["enigma"])
/// _ = try ring.decrypt(data)                                   // .rule: a header, else the headerless rule
/// _ = try ring.decrypt(data, reading: .headerlessAs(.legacy))   // a client set to the fixed IV
/// _ = try ring.decrypt(data, reading: .only(.acrh))             // the header is required
/// ```
public enum ReadPolicy: Hashable, Sendable {
    /// A `PNED` header picks the cryptor; data without one is read both legacy ways (`legacy` and
    /// `legacyRandomIV`) and the headerless rule decides. The default.
    case rule
    /// A `PNED` header picks the cryptor; data without one is read as this scheme only (a client's legacy cryptor
    /// setting: `legacy`, `legacyRandomIV` or `legacy33`). `headerlessAs(.acrh)` has no headerless reading: data
    /// without a header is refused (`unknownCryptor`; `malformedHeader` when empty or a header cut short), as by a
    /// client with no legacy cryptor.
    case headerlessAs(Scheme)
    /// Exactly this scheme: `acrh` requires the header; the others never look for one.
    case only(Scheme)

    /// The policy two settings name, the one mapping every shell uses (the CLI's `--scheme`/`--legacy-scheme`, the
    /// C library's `scheme` argument beside its module's legacy cryptor, the vector files' `scheme` and
    /// `legacy_scheme`): a `scheme` (not `auto`) reads only that scheme, a `legacyScheme` beside it ignored; else a
    /// `legacyScheme` is how headerless data is read; neither is the rule.
    package init(scheme: Scheme?, legacyScheme: Scheme?) {
        if let scheme {
            self = .only(scheme)
        } else if let legacyScheme {
            self = .headerlessAs(legacyScheme)
        } else {
            self = .rule
        }
    }

    /// The scheme read alone (`only`), else nil: a header is read when there is one.
    package var scheme: Scheme? { if case .only(let scheme) = self { scheme } else { nil } }

    /// How data without a header is read when `scheme` is nil (`headerlessAs`); nil: the headerless rule.
    package var legacyScheme: Scheme? { if case .headerlessAs(let scheme) = self { scheme } else { nil } }
}
