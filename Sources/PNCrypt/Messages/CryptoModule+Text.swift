// `CryptoModule`'s first call: Base64 text in, the text rule by default (issue 47), as in every shell (the CLI's
// `decrypt`, C's `pncrypt_decrypt_text`, Python's `decrypt()`). It lives in the messages layer because the text
// rule's first step between the two legacy readings asks whether a plaintext is a message (`isMessageText`).
import PNCryptCore

extension CryptoModule {
    /// Decodes Base64 text (lenient as `Base64.decode`), decrypts it and returns the plaintext as text: what every
    /// SDK's `decrypt` of a message or a string gives.
    ///
    /// A reading qualifies only when its padding is valid and its plaintext is valid UTF-8; on headerless data of
    /// two blocks or more both legacy readings are tried (unless `reading` names one) and the headerless rule
    /// decides (docs/formats.md section 1), so a client's fixed-IV and random-IV messages both decrypt with no
    /// setting. A binary plaintext is not text: decrypt it with `decryptBytes(_:reading:)`.
    ///
    /// ```swift
    /// let module = try CryptoModule(cipherKey: "enigma")
    /// let text = try module.decrypt("q/xJqqN6qbiZMXYmiQC1Fw==")   // "yay!"
    /// ```
    ///
    /// - Parameters:
    ///   - text: the Base64 text (whitespace and line breaks are skipped).
    ///   - reading: how to read, for this call; nil is the module's `reading`.
    /// - Throws: `notBase64`; `unknownCryptor`; `malformedHeader`; `decryptionFailed` when no reading qualifies:
    ///   a wrong key, corrupt data, or a plaintext that is not UTF-8 (a binary one needs
    ///   `decryptBytes(_:reading:)`), all the same error (no padding oracle); `ambiguous` when two readings do.
    public func decrypt(_ text: String, reading: ReadPolicy? = nil) throws(PNCryptError) -> String {
        let plaintext = try decrypt(text, reading: reading, content: .text, check: isMessageText(_:readable:))
        return String(decoding: plaintext, as: UTF8.self)
    }
}
