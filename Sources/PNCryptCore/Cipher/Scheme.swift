import PNCryptJSON

/// A cipherKey encryption scheme (docs/formats.md section 1). The raw values are the names used on the command line and
/// in vector files.
///
/// | scheme | key | cipher | IV | output |
/// |---|---|---|---|---|
/// | `legacy` | first 32 hex chars of SHA-256(key), as ASCII | AES-256-CBC | `0123456789012345` | ciphertext |
/// | `legacy-random-iv` | as `legacy` | AES-256-CBC | random | IV ‖ ciphertext |
/// | `acrh` | raw SHA-256(key) | AES-256-CBC | random | `PNED` header ‖ ciphertext |
/// | `legacy33` | raw MD5(key) | AES-128-CBC | `0123456789012345` | ciphertext |
public enum Scheme: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// Fixed IV `0123456789012345`, hex-derived key. Written by iOS 3.4+ and every SDK's "static IV" mode.
    case legacy
    /// 16 random IV bytes prefixed to the ciphertext, hex-derived key. Default of older current SDKs.
    case legacyRandomIV = "legacy-random-iv"
    /// CryptoModule `PNED`/`ACRH` header, raw SHA-256 key, random IV. The recommended scheme for new data.
    case acrh
    /// iOS 3.3: AES-128-CBC with the raw MD5 of the key and the fixed IV.
    case legacy33

    /// The scheme name, as on the command line.
    public var description: String { rawValue }
}
