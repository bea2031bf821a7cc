// The OpenSSL backend (see CipherBackend.swift): every OpenSSL call of PNCrypt lives in this file.
//
// Ownership:
// - The two `EVP_CIPHER` objects are fetched once per process and never freed (process lifetime).
// - An `OpenSSLContext` owns one `EVP_CIPHER_CTX`, keyed once for one direction; it is freed in `deinit`. It
//   borrows the key bytes only while keying (`EVP_CipherInit_ex` copies them into its schedule). A context is not
//   thread-safe: it is used by one caller at a time, handed out by `ContextPool`.
// - An encrypting context may own a small reserve of CSPRNG bytes for random IVs (`randomIV(into:)`), allocated
//   on first use, wiped and freed in `deinit`. Bytes drawn before a `fork()` are discarded in the child.
// - Input and output pointers are borrowed from the caller for one call and never stored; memory is wiped with
//   `wipe`, the package's one wipe function.
//
// Compiled where swift-crypto is not the backend (CipherBackend.swift): never on Apple platforms, nor with the
// `SwiftCrypto` trait.

#if PNCRYPT_OPENSSL
import PNCryptBase

internal import CLibCrypto

/// OpenSSL 3 (libcrypto) as PNCrypt's cipher backend: process-wide objects and one-shot helpers.
package enum OpenSSL: CipherBackend {
    /// AES-256-CBC, fetched once: looking the cipher up per message costs more than the cipher itself.
    nonisolated(unsafe) static let aes256CBC: OpaquePointer = {
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-CBC", nil) else {
            fatalError("OpenSSL has no AES-256-CBC: the libcrypto installation is broken")
        }
        return cipher
    }()

    /// AES-128-CBC (the iOS 3.3 `legacy33` scheme).
    nonisolated(unsafe) static let aes128CBC: OpaquePointer = {
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-128-CBC", nil) else {
            fatalError("OpenSSL has no AES-128-CBC: the libcrypto installation is broken")
        }
        return cipher
    }()

    /// SHA-256 of `bytes` (32 bytes).
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, EVP_sha256(), length: 32) }

    /// MD5 of `bytes` (16 bytes).
    package static func md5(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, EVP_md5(), length: 16) }

    private static func digest(_ bytes: [UInt8], _ md: OpaquePointer?, length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var outLength: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &outLength, md, nil)
            }
        }
        precondition(ok == 1 && Int(outLength) == length, "EVP_Digest failed")
        return out
    }

    /// `count` bytes from OpenSSL's CSPRNG.
    package static func randomBytes(_ count: Int) throws(PNCryptError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBytes { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard ok == 1 else {
            throw PNCryptError(.encryptionFailed, "the random number generator (RAND_bytes) failed")
        }
        return out
    }

    /// 2 KiB: 128 IVs per `RAND_bytes` call (`OpenSSLContext.randomIV(into:)`).
    package static var ivReserveSize: Int { OpenSSLContext.ivReserveSize }

    /// A context keyed with `key` for AES-256-CBC (`aes256`) or AES-128-CBC, in one direction.
    package static func makeContext(aes256: Bool, key: SecretBytes, encrypting: Bool) -> OpenSSLContext {
        OpenSSLContext(cipher: aes256 ? aes256CBC : aes128CBC, key: key, encrypting: encrypting)
    }
}

/// One keyed `EVP_CIPHER_CTX` for one direction. Per message only the IV is reset.
///
/// Not thread-safe: use from one caller at a time (the pool hands it out exclusively).
package final class OpenSSLContext: AESCBCCipher, RandomIVReserve, @unchecked Sendable {
    private let ctx: OpaquePointer
    package let encrypting: Bool

    package init(cipher: OpaquePointer, key: SecretBytes, encrypting: Bool) {
        guard let ctx = EVP_CIPHER_CTX_new() else { fatalError("EVP_CIPHER_CTX_new: out of memory") }
        let ok = key.bytes.withUnsafeBytes { keyBytes in
            EVP_CipherInit_ex(ctx, cipher, nil, keyBytes.bindMemory(to: UInt8.self).baseAddress, nil,
                              encrypting ? 1 : 0)
        }
        precondition(ok == 1, "EVP_CipherInit_ex failed to key the context")
        // Decryption removes the padding itself, in constant time (`PKCS7.unpad`): OpenSSL's own check returns
        // early on the first bad byte, and its failure would be the only thing told apart from others.
        if !encrypting { EVP_CIPHER_CTX_set_padding(ctx, 0) }
        self.ctx = ctx
        self.encrypting = encrypting
    }

    deinit {
        EVP_CIPHER_CTX_free(ctx)
        freeIVReserve()
    }

    /// Random bytes drawn from OpenSSL's CSPRNG ahead of use, 16 per IV (IVReserve.swift): one `RAND_bytes` call
    /// per `ivReserveSize / 16` messages instead of one per message (it costs more than encrypting ~100 bytes).
    /// A call costs about 6,600 instructions whatever its size, plus under 2 per byte up to 2 KiB (OpenSSL 3.0,
    /// callgrind): 2 KiB gives 128 IVs for about 10,100, some 80 per message (512 bytes: some 235).
    var ivReserve = IVReserveState()
    static let ivReserveSize = 2048

    /// Writes 16 fresh bytes from OpenSSL's CSPRNG (`RAND_bytes`) to `output`, each byte handed out once.
    package func randomIV(into output: UnsafeMutableRawPointer) -> Bool { takeIV(into: output) }

    /// Fills the reserve from `RAND_bytes`.
    func drawRandom(_ bytes: UnsafeMutableRawPointer, count: Int) -> Bool {
        RAND_bytes(bytes.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1
    }

    /// Starts a new message with `iv` (16 bytes); the key schedule is kept.
    package func start(iv: UnsafeRawBufferPointer) -> Bool {
        precondition(iv.count == 16)
        chainKnown = false
        return EVP_CipherInit_ex(ctx, nil, nil, nil, iv.bindMemory(to: UInt8.self).baseAddress, -1) == 1
    }

    /// The CBC chaining value the context holds (the last ciphertext block it went through) while `chainKnown`:
    /// `run` then starts a message without `EVP_CipherInit_ex` (which costs more than encrypting a message, mostly
    /// in provider parameter lookups) by folding `chain` XOR the message's IV into the first block. The result is
    /// the same bytes standard CBC gives with that IV; the chain is ciphertext, nothing secret.
    private var chain: (UInt64, UInt64) = (0, 0)
    private var chainKnown = false

    /// Messages up to this size go through the chained path of `run`.
    private static let chainedLimit = 1 << 20

    /// Puts the context in a known chaining state (all zeros) with one `EVP_CipherInit_ex`.
    private func resetChain() -> Bool {
        let zeros: (UInt64, UInt64) = (0, 0)
        let ok = withUnsafeBytes(of: zeros) { start(iv: $0) }
        chain = zeros
        chainKnown = ok
        return ok
    }

    /// XORs the 16 bytes at `block` with `a` and `b` (each 16 bytes).
    private static func xorBlock(_ block: UnsafeMutableRawPointer, _ a: UnsafeRawPointer, _ b: (UInt64, UInt64)) {
        let low = block.loadUnaligned(as: UInt64.self) ^ a.loadUnaligned(as: UInt64.self) ^ b.0
        let high = block.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            ^ a.loadUnaligned(fromByteOffset: 8, as: UInt64.self) ^ b.1
        block.storeBytes(of: low, as: UInt64.self)
        block.storeBytes(of: high, toByteOffset: 8, as: UInt64.self)
    }

    /// The 16 bytes at `block` as a chaining value.
    private static func loadBlock(_ block: UnsafeRawPointer) -> (UInt64, UInt64) {
        (block.loadUnaligned(as: UInt64.self), block.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// `AESCBCCipher.run` (one whole message after `prefix` bytes of `output`) without `EVP_CipherInit_ex` for
    /// messages (up to 1 MiB; decrypting, whole blocks); anything else takes the protocol's path.
    package func run(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer,
             prefix: Int) -> Int? {
        precondition(iv.count == 16)
        if input.count > 0 && input.count <= Self.chainedLimit, let base = output.baseAddress {
            if encrypting {
                return sealChained(iv: iv, input: input, output: base + prefix).map { $0 + prefix }
            }
            if input.count % 16 == 0 {
                return openChained(iv: iv, input: input, output: base + prefix).map { $0 + prefix }
            }
        }
        return runRestarting(iv: iv, input: input, output: output, prefix: prefix)
    }

    /// Encryption without `EVP_CipherInit_ex`: the padded plaintext is copied to `output`, its first block XORed
    /// with `iv` and the chain, and encrypted in place (whole blocks: `EVP_CipherUpdate` writes them all and keeps
    /// nothing back). Returns the ciphertext length; on failure the output is wiped.
    private func sealChained(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer,
                             output: UnsafeMutableRawPointer) -> Int? {
        let count = input.count
        let padded = (count / 16 + 1) * 16
        output.copyMemory(from: input.baseAddress!, byteCount: count)
        (output + count).initializeMemory(as: UInt8.self, repeating: UInt8(padded - count), count: padded - count)
        guard chainKnown || resetChain() else {
            wipe(output, count: padded)
            return nil
        }
        Self.xorBlock(output, iv.baseAddress!, chain)
        guard update(UnsafeRawBufferPointer(start: output, count: padded), into: output) == padded else {
            chainKnown = false
            wipe(output, count: padded)
            return nil
        }
        chain = Self.loadBlock(output + padded - 16)
        return padded
    }

    /// Decryption (whole blocks) without `EVP_CipherInit_ex`: every block is decrypted against the chain instead
    /// of `iv`, then the first one is corrected (XOR chain XOR iv). Padding is left for `PKCS7.unpad`.
    private func openChained(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer,
                             output: UnsafeMutableRawPointer) -> Int? {
        let count = input.count
        guard chainKnown || resetChain() else { return nil }
        guard update(input, into: output) == count else {
            chainKnown = false
            return nil
        }
        Self.xorBlock(output, iv.baseAddress!, chain)
        chain = Self.loadBlock(input.baseAddress! + count - 16)
        return count
    }

    /// Processes `input`, writing at most `input.count + 16` bytes to `output`; returns the count written.
    package func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) -> Int? {
        var written: Int32 = 0
        guard input.count > 0 else { return 0 }
        let ok = EVP_CipherUpdate(ctx, output.assumingMemoryBound(to: UInt8.self), &written,
                                  input.bindMemory(to: UInt8.self).baseAddress, Int32(input.count))
        return ok == 1 ? Int(written) : nil
    }

    /// Finishes the message, writing at most 16 bytes to `output`: encrypting adds the PKCS#7 padding;
    /// decrypting (padding off) writes nothing and fails only on an incomplete last block. Returns nil on failure.
    package func finish(into output: UnsafeMutableRawPointer) -> Int? {
        chainKnown = false
        var written: Int32 = 0
        let ok = EVP_CipherFinal_ex(ctx, output.assumingMemoryBound(to: UInt8.self), &written)
        if ok != 1 { ERR_clear_error() }
        return ok == 1 ? Int(written) : nil
    }
}
#endif
