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
}

/// One keyed AES-CBC context for one direction; per message only the IV is reset. Not thread-safe: one caller at a
/// time (`ContextPool` hands contexts out exclusively).
package protocol AESCBCCipher: AnyObject {
    /// Writes 16 fresh CSPRNG bytes to `output`, each handed out once (even across `fork()`); false on failure.
    func randomIV(into output: UnsafeMutableRawPointer) -> Bool
    /// Starts a new message with `iv` (16 bytes), keeping the key schedule.
    func start(iv: UnsafeRawBufferPointer) -> Bool
    /// Processes `input` (at most 1 GiB), writing at most `input.count + 16` bytes to `output`; the count written.
    func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) -> Int?
    /// Ends the message, writing at most 16 bytes to `output`: encrypting adds the PKCS#7 padding; decrypting writes
    /// nothing and fails only on an incomplete last block. nil on failure.
    func finish(into output: UnsafeMutableRawPointer) -> Int?
    /// Encrypts or decrypts one whole message with `iv`, appending the result after `prefix` bytes of `output`,
    /// which has room for `prefix + input.count + 16` bytes. Returns the total length, or nil on failure.
    /// Decrypting returns every block, padding included: `PKCS7.unpad` checks and removes it. The default restarts
    /// the context (`runRestarting`); a backend may do the same work more cheaply.
    func run(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer,
             prefix: Int) -> Int?
}

extension AESCBCCipher {
    /// `run` by default.
    package func run(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer,
             prefix: Int) -> Int? {
        runRestarting(iv: iv, input: input, output: output, prefix: prefix)
    }

    /// `run` as `start`, `update`s and `finish`.
    func runRestarting(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer,
                       output: UnsafeMutableRawBufferPointer, prefix: Int) -> Int? {
        guard start(iv: iv), let base = output.baseAddress else { return nil }
        // Feed very large inputs in pieces (`update` takes at most 1 GiB).
        var consumed = 0
        var produced = prefix
        let piece = 1 << 30
        while consumed < input.count {
            let n = min(piece, input.count - consumed)
            guard let w = update(UnsafeRawBufferPointer(rebasing: input[consumed..<consumed + n]),
                                 into: base + produced) else { return nil }
            consumed += n
            produced += w
        }
        guard let w = finish(into: base + produced) else { return nil }
        return produced + w
    }
}
