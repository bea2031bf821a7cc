// The default legacy scheme, stated once: every `legacyScheme` parameter's default is one of these constants,
// and the docs (docs/formats.md section 1, "Telling the schemes apart") link here.

extension Scheme {
    /// How bytes without a `PNED` header are read when the caller names no legacy scheme and the bytes must be
    /// read one way (files and streams: `StreamDecryptor`, `KeyRing.fileMatch`, the CLI's `--binary`):
    /// `legacyRandomIV`, what SDK file sharing writes.
    ///
    /// The library's other readers default differently, on purpose: text and messages (`KeyRing.decrypt`,
    /// `MessageCrypto`, `MessageRekey`, `StreamTextReader`, the CLI's text) take no default (`nil`): both legacy
    /// readings are tried and a plaintext is delivered only when exactly one qualifies; a `CryptoModule`, shaped
    /// like an SDK's, reads `moduleDefaultLegacy`.
    public static let fileDefaultLegacy: Scheme = .legacyRandomIV

    /// How a `CryptoModule` reads data without a `PNED` header unless told otherwise: `legacy` (the fixed IV).
    /// See `fileDefaultLegacy` for the other readers.
    public static let moduleDefaultLegacy: Scheme = .legacy
}
