// The one seam between PNCrypt and a cryptography library. The rest of the library calls `Backend` only: SHA-256
// and MD5 for key derivation, random bytes, and keyed AES-CBC contexts (wiping is `wipe`, whatever the backend).
// Two backends, one file each, selected below (Package.swift links the matching library): OpenSSL (OpenSSL.swift),
// the default on Linux and every non-Apple platform; swift-crypto (SwiftCrypto.swift) on Apple platforms, which
// ship no libcrypto, and anywhere with the `SwiftCrypto` package trait. Another one (say CommonCrypto on Apple
// platforms) is one more file with a type conforming to `CipherBackend` and a context conforming to
// `AESCBCCipher`, selected below.
//
// Ownership rules every backend keeps: a context owns its library state and frees it in `deinit`; key bytes are
// borrowed (`SecretBytes`, owned and wiped by `CipherKey`) and copied into the key schedule; every pointer passed
// in is borrowed for the duration of one call and never stored.

import PNCryptBase

#if !PNCRYPT_OPENSSL
/// The cryptography library PNCrypt runs on: swift-crypto.
package typealias Backend = SwiftCryptoBackend
#else
/// The cryptography library PNCrypt runs on: OpenSSL 3.
package typealias Backend = OpenSSL
#endif

/// What PNCrypt needs from a cryptography library.
package protocol CipherBackend {
    /// A keyed AES-CBC context.
    associatedtype Context: AESCBCCipher

    /// SHA-256 of `bytes` (32 bytes).
    static func sha256(_ bytes: [UInt8]) -> [UInt8]
    /// MD5 of `bytes` (16 bytes; the `legacy33` key).
    static func md5(_ bytes: [UInt8]) -> [UInt8]
    /// `count` bytes from a CSPRNG; throws `encryptionFailed` when the generator fails.
    static func randomBytes(_ count: Int) throws(PNCryptError) -> [UInt8]
    /// A context keyed with `key` (32 bytes for AES-256, 16 for AES-128) for one direction. Decrypting contexts
    /// leave the PKCS#7 padding in place (`PKCS7.unpad` checks it in constant time).
    static func makeContext(aes256: Bool, key: SecretBytes, encrypting: Bool) -> Context
    /// How many random bytes an encrypting context draws ahead for its IVs (wiped when the context is freed); 0
    /// when the backend buffers none.
    static var ivReserveSize: Int { get }
}
