// Every OpenSSL call and pointer of PNCrypt lives in this file.
//
// Ownership:
// - The two `EVP_CIPHER` objects are fetched once per process and never freed (process lifetime).
// - An `AESCBCContext` owns one `EVP_CIPHER_CTX`, keyed once for one direction; it is freed in `deinit`.
//   A context is not thread-safe: it is used by one caller at a time, handed out by `ContextPool` (which holds
//   its idle contexts: one in an atomic slot as a +1 `Unmanaged` reference, released in `deinit`, the rest in a
//   locked array).
// - An encrypting context may own a small reserve of CSPRNG bytes for random IVs (`randomIV(into:)`), allocated
//   on first use, wiped and freed in `deinit`. Bytes drawn before a `fork()` are discarded in the child.
// - `SecretBytes` owns key material and wipes it with `OPENSSL_cleanse` when released. Plaintext buffers the
//   library owns (decrypt output that fails, stream and read buffers, copies of the caller's bytes, JSON text of
//   messages) are wiped with `OpenSSL.cleanse` before they are released.
internal import CLibCrypto
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Incremented in the child after every `fork()`: buffered random bytes drawn under an older generation are
/// thrown away, so a parent and its child never hand out the same IVs (OpenSSL's own DRBG does the same).
private let forkGeneration = Atomic<Int>(0)

private let forkHandlerInstalled: Bool = {
    pthread_atfork(nil, nil, { forkGeneration.add(1, ordering: .relaxed) })
    return true
}()

/// Process-wide OpenSSL objects and one-shot helpers.
enum OpenSSL {
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
    static func sha256(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, EVP_sha256(), length: 32) }

    /// MD5 of `bytes` (16 bytes).
    static func md5(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, EVP_md5(), length: 16) }

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
    static func randomBytes(_ count: Int) throws(PNCryptError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBytes { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard ok == 1 else {
            throw PNCryptError(.encryptionFailed, "the random number generator (RAND_bytes) failed")
        }
        return out
    }

    /// Overwrites `bytes` with zeros in a way the compiler cannot remove. Call it only on an array this code owns
    /// alone: on shared storage the write would first copy it (and wipe only the copy).
    static func cleanse(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { cleanse(base, count: buffer.count) }
        }
    }

    /// Overwrites `count` bytes at `pointer`.
    static func cleanse(_ pointer: UnsafeMutableRawPointer, count: Int) {
        wipe(pointer, count: count)
    }

    /// Test hook: called with every buffer right after it was wiped (before it is freed), in the task that wiped
    /// it. Lets tests check that a buffer was wiped and holds zeros. Read in debug builds only (see `wipe`).
    @TaskLocal static var wipeObserver: (@Sendable (UnsafeRawBufferPointer) -> Void)?
}

/// Key bytes that are wiped when the last reference goes away.
final class SecretBytes: Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    deinit {
        // `bytes` is immutable and owned by this object (only tests take copies, through `CipherKey.keyBytes`);
        // wipe its storage in place.
        bytes.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress { OpenSSL.cleanse(UnsafeMutableRawPointer(mutating: base), count: buffer.count) }
        }
    }
}

/// One keyed `EVP_CIPHER_CTX` for one direction. Per message only the IV is reset.
///
/// Not thread-safe: use from one caller at a time (the pool hands it out exclusively).
final class AESCBCContext: @unchecked Sendable {
    private let ctx: OpaquePointer
    let encrypting: Bool

    init(cipher: OpaquePointer, key: SecretBytes, encrypting: Bool) {
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
        if let ivReserve {
            OPENSSL_cleanse(ivReserve, Self.ivReserveSize)
            ivReserve.deallocate()
        }
    }

    /// Random bytes drawn from OpenSSL's CSPRNG ahead of use, 16 per IV: one `RAND_bytes` call per
    /// `ivReserveSize / 16` messages instead of one per message (it costs more than encrypting ~100 bytes).
    private var ivReserve: UnsafeMutableRawPointer?
    private var ivReserveUsed = AESCBCContext.ivReserveSize
    private var ivReserveGeneration = 0
    private static let ivReserveSize = 512

    /// Writes 16 fresh bytes from OpenSSL's CSPRNG (`RAND_bytes`) to `output`, each byte handed out once.
    func randomIV(into output: UnsafeMutableRawPointer) -> Bool {
        let generation = forkHandlerInstalled ? forkGeneration.load(ordering: .relaxed) : 0
        if ivReserveUsed == Self.ivReserveSize || generation != ivReserveGeneration {
            let reserve = ivReserve ?? UnsafeMutableRawPointer.allocate(byteCount: Self.ivReserveSize, alignment: 16)
            ivReserve = reserve
            guard RAND_bytes(reserve.assumingMemoryBound(to: UInt8.self), Int32(Self.ivReserveSize)) == 1 else {
                ivReserveUsed = Self.ivReserveSize
                return false
            }
            ivReserveUsed = 0
            ivReserveGeneration = generation
        }
        let source = ivReserve! + ivReserveUsed
        output.copyMemory(from: source, byteCount: 16)
        OPENSSL_cleanse(source, 16)
        ivReserveUsed += 16
        return true
    }

    /// Starts a new message with `iv` (16 bytes); the key schedule is kept.
    func start(iv: UnsafeRawBufferPointer) -> Bool {
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

    /// Processes `input`, writing at most `input.count + 16` bytes to `output`; returns the count written.
    func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) -> Int? {
        var written: Int32 = 0
        guard input.count > 0 else { return 0 }
        let ok = EVP_CipherUpdate(ctx, output.assumingMemoryBound(to: UInt8.self), &written,
                                  input.bindMemory(to: UInt8.self).baseAddress, Int32(input.count))
        return ok == 1 ? Int(written) : nil
    }

    /// Finishes the message, writing at most 16 bytes to `output`: encrypting adds the PKCS#7 padding;
    /// decrypting (padding off) writes nothing and fails only on an incomplete last block. Returns nil on failure.
    func finish(into output: UnsafeMutableRawPointer) -> Int? {
        chainKnown = false
        var written: Int32 = 0
        let ok = EVP_CipherFinal_ex(ctx, output.assumingMemoryBound(to: UInt8.self), &written)
        if ok != 1 { ERR_clear_error() }
        return ok == 1 ? Int(written) : nil
    }

    /// Encrypts or decrypts one whole message, appending the result after `prefix` bytes of `output`.
    /// `output` must have room for `prefix + input.count + 16` bytes. Returns the total length, or nil on failure.
    /// Decrypting returns every block, padding included: `PKCS7.unpad` checks and removes it.
    func run(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer,
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
        guard start(iv: iv), let base = output.baseAddress else { return nil }
        // EVP_CipherUpdate takes an Int32 length: feed very large inputs in pieces.
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

extension AESCBCContext {
    /// `run` for encryption without `EVP_CipherInit_ex`: the padded plaintext is copied to `output`, its first
    /// block XORed with `iv` and the chain, and encrypted in place (whole blocks: `EVP_CipherUpdate` writes them
    /// all and keeps nothing back). Returns the ciphertext length; on failure the output is wiped.
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

    /// `run` for decryption (whole blocks) without `EVP_CipherInit_ex`: every block is decrypted against the chain
    /// instead of `iv`, then the first one is corrected (XOR chain XOR iv). Padding is left for `PKCS7.unpad`.
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
}

/// Keyed contexts for one key and direction, reused across calls and shared safely between threads.
final class ContextPool: Sendable {
    private let cipher: UnsafeSendableCipher
    private let key: SecretBytes
    private let encrypting: Bool
    private let idle = Locked<[AESCBCContext]>([])
    private static let maxIdle = 16
    /// One more idle context, outside the lock (holding a +1 reference): one caller at a time (the usual case)
    /// takes and returns it with one atomic exchange each way, without locking.
    private let spare = Atomic<Unmanaged<AESCBCContext>?>(nil)

    init(aes256: Bool, key: SecretBytes, encrypting: Bool) {
        self.cipher = UnsafeSendableCipher(pointer: aes256 ? OpenSSL.aes256CBC : OpenSSL.aes128CBC)
        self.key = key
        self.encrypting = encrypting
    }

    deinit {
        spare.exchange(nil, ordering: .acquiring)?.release()
    }

    /// Runs `body` with a context no other caller is using, returning it to the pool afterwards.
    func withContext<R, E: Error>(_ body: (AESCBCContext) throws(E) -> R) throws(E) -> R {
        if let taken = spare.exchange(nil, ordering: .acquiring) {
            // The slot's reference goes back into the slot as it is (no retain, no release), or to the array.
            defer {
                if !spare.compareExchange(expected: nil, desired: taken, ordering: .releasing).exchanged {
                    let context = taken.takeRetainedValue()
                    idle.withLock { if $0.count < Self.maxIdle { $0.append(context) } }
                }
            }
            return try taken._withUnsafeGuaranteedRef { context in
                Result { () throws(E) -> R in try body(context) }
            }.get()
        }
        let context = idle.withLock { $0.popLast() }
            ?? AESCBCContext(cipher: cipher.pointer, key: key, encrypting: encrypting)
        defer {
            let retained = Unmanaged.passRetained(context)
            if !spare.compareExchange(expected: nil, desired: retained, ordering: .releasing).exchanged {
                retained.release()
                idle.withLock { if $0.count < Self.maxIdle { $0.append(context) } }
            }
        }
        return try body(context)
    }

    /// A context for the caller's exclusive, long use (a stream).
    func makeContext() -> AESCBCContext {
        AESCBCContext(cipher: cipher.pointer, key: key, encrypting: encrypting)
    }
}

/// `EVP_CIPHER` objects are immutable and shared after fetching.
private struct UnsafeSendableCipher: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// PKCS#7 padding checked in constant time: the time taken does not depend on which byte is wrong, nor on
/// whether any is (a decrypting `AESCBCContext` leaves the padding in place for this).
enum PKCS7 {
    /// The plaintext length of `plaintext` (whole blocks, padding included) and whether its padding is valid.
    /// When it is not, the length returned is `plaintext.count`, so later checks run over as many bytes.
    static func unpad(_ plaintext: UnsafeRawBufferPointer) -> (count: Int, valid: Bool) {
        let count = plaintext.count
        guard count >= 16, count % 16 == 0 else { return (count, false) }
        let pad = Int(plaintext[count - 1])
        // All-ones when the condition holds, zero otherwise; no branch on secret data.
        var bad = mask(pad == 0 ? 1 : 0) | mask(pad > 16 ? 1 : 0)
        for i in 0..<16 {
            let inPad = mask(i < pad ? 1 : 0)
            bad |= inPad & (Int(plaintext[count - 1 - i]) ^ pad)
        }
        let valid = (bad == 0 ? 1 : 0)
        let keep = mask(valid)
        return ((count - pad) & keep | count & ~keep, valid == 1)
    }

    /// `-1` (all bits) for 1, `0` for 0.
    @inline(__always)
    private static func mask(_ bit: Int) -> Int { 0 &- bit }
}
