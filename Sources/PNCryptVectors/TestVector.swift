// The vector checker's vectors: test code kept out of the PNCrypt library, decoded with PNCrypt's own JSON
// (`JSONValue`, `JSONValueDecoder`); TestVectorChecker.swift runs them through the public API only.

import PNCrypt

/// One cross-SDK test vector, as stored in `Vectors/*.json` (format in `Vectors/README.md`).
package struct TestVector: Codable, Hashable, Sendable {
    /// What a vector expects of the library.
    package enum Expectation: String, Codable, Hashable, Sendable {
        /// Decrypting gives the plaintext; with a known IV, encrypting gives the ciphertext.
        case ok
        /// Decrypting fails with a decryption error.
        case decryptionError = "decryption_error"
        /// Decrypting fails with an unknown-cryptor error.
        case unknownCryptor = "unknown_cryptor"
        /// Encrypting the plaintext fails with an encryption error.
        case encryptionError = "encryption_error"
    }

    /// Unique id across all vector files.
    package var id: String
    /// A `Scheme` raw value, or `auto` (decrypt as a module: header if present, else `legacy`; decrypt only).
    package var scheme: String
    /// The cipherKey.
    package var key: String
    /// The IV in hex, when the encryption is deterministic.
    package var iv: String?
    /// Plaintext as UTF-8 text.
    package var plaintext: String?
    /// Plaintext as Base64 of arbitrary bytes.
    package var plaintextB64: String?
    /// The scheme's output bytes in Base64.
    package var ciphertext: String?
    /// What should happen.
    package var expect: Expectation
    /// For negatives: the expected `PNCryptError.Code` name.
    package var reason: String?
    /// Where the vector came from.
    package var source: String?
    /// With `auto`: how headerless data is read (the module's legacy cryptor): `legacy` (the default),
    /// `legacy-random-iv`, `none` (a module with only the acrh cryptor), or `rule` (none named: both legacy
    /// readings, the headerless rule).
    package var legacyScheme: String?
    /// What the plaintext must be: `bytes` (the default: a module's `decryptBinary`) or `text` (valid UTF-8:
    /// `KeyRing.decrypt` with `.text`).
    package var content: String?
    /// `binary` (the default: one-shot calls) or `stream` (the stream encryptor and decryptor, in small chunks).
    package var mode: String?
    /// The contract scenario a vector comes from, when it does (informative).
    package var scenario: String?
    /// A `JSONStyle` raw value (`go`, `ruby`, `php`, `kotlin`): the plaintext is `message` written in that style, and
    /// publishing `message` as a message in that style under `scheme` gives `ciphertext` (Vectors/styles.json).
    package var style: String?
    /// With `style`: the message given to the SDK, as JSON text.
    package var message: String?

    enum CodingKeys: String, CodingKey {
        case id, scheme, key, iv, plaintext, plaintextB64 = "plaintext_b64", ciphertext, expect, reason, source
        case legacyScheme = "legacy_scheme", mode, scenario, style, message, content
    }

    /// A vector with the given fields (the others absent).
    package init(id: String, scheme: String, key: String, iv: String? = nil, plaintext: String? = nil,
                plaintextB64: String? = nil, ciphertext: String? = nil, expect: Expectation, reason: String? = nil,
                source: String? = nil, legacyScheme: String? = nil, mode: String? = nil, scenario: String? = nil,
                style: String? = nil, message: String? = nil) {
        self.id = id
        self.scheme = scheme
        self.key = key
        self.iv = iv
        self.plaintext = plaintext
        self.plaintextB64 = plaintextB64
        self.ciphertext = ciphertext
        self.expect = expect
        self.reason = reason
        self.source = source
        self.legacyScheme = legacyScheme
        self.mode = mode
        self.scenario = scenario
        self.style = style
        self.message = message
        content = nil
    }

    /// The plaintext bytes, from `plaintext` or `plaintextB64`.
    package func plaintextBytes() throws(PNCryptError) -> [UInt8]? {
        if let plaintext { return Array(plaintext.utf8) }
        if let plaintextB64 { return try Base64.decode(plaintextB64) }
        return nil
    }
}
