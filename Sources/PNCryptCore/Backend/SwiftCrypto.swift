// The swift-crypto backend (see CipherBackend.swift): every swift-crypto call of PNCrypt lives in this file. It is
// the backend on Apple platforms (no libcrypto there) and, with the `SwiftCrypto` package trait, anywhere.
//
// swift-crypto has no keyed AES-CBC context: `AES._CBC` (underscored API of _CryptoExtras, so the package pins
// swift-crypto exactly) takes a `SymmetricKey` and an IV per call, expands the key schedule per call, copies its
// input into a new `Data` and returns another. What a context can keep, it keeps once per key: the `SymmetricKey`
// (made once, in `init`), the chaining value between `update` calls of a stream, a reusable buffer for a partial
// block, and (encrypting) a reserve of random IVs (IVReserve.swift). docs/performance.md, appendix B, "swift-crypto
// backend", has the instructions per message of each part.
//
// Ownership:
// - A `SwiftCryptoContext` owns one `SymmetricKey` (swift-crypto's `SecureBytes`, zeroed by swift-crypto when
//   freed), a 16-byte chaining value and a 16-byte partial-block buffer, both wiped in `deinit`, and an encrypting
//   one a reserve of random IV bytes, allocated on first use, wiped and freed in `deinit`.
// - Every `Data` swift-crypto returns is copied into the caller's buffer and then wiped with `wipe`. What
//   swift-crypto does not let us wipe: its own padded copy of the input and the expanded key schedule (an
//   `AES_KEY` on its stack) of each call (docs/security.md).
// - Input and output pointers are borrowed from the caller for one call and never stored.

#if !PNCRYPT_OPENSSL
import PNCryptBase

#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
// Where Package.swift links swift-crypto by platform (through PNCryptAppleCrypto, which re-exports it).
internal import PNCryptAppleCrypto
#endif
internal import Crypto
internal import _CryptoExtras
#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// swift-crypto (`Crypto`, `_CryptoExtras`) as PNCrypt's cipher backend.
package enum SwiftCryptoBackend: CipherBackend {
    /// SHA-256 of `bytes` (32 bytes).
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// MD5 of `bytes` (16 bytes).
    package static func md5(_ bytes: [UInt8]) -> [UInt8] { Array(Insecure.MD5.hash(data: bytes)) }

    /// 256 bytes: 16 IVs per `getentropy` call (its limit; `arc4random_buf` on Apple platforms).
    package static var ivReserveSize: Int { SwiftCryptoContext.ivReserveSize }

    /// `count` bytes from the system CSPRNG (`CLibrary.systemRandom`, where the contexts' IV reserves draw too).
    package static func randomBytes(_ count: Int) throws(PNCryptError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBytes { buffer in
            buffer.baseAddress.map { CLibrary.systemRandom($0, count: buffer.count) } ?? true
        }
        guard ok else {
            throw PNCryptError(.encryptionFailed, "the system's random number generator (getentropy) failed")
        }
        return out
    }

    /// A context keyed with `key` for AES-256-CBC (32-byte key) or AES-128-CBC (16), in one direction.
    package static func makeContext(aes256: Bool, key: SecretBytes, encrypting: Bool) -> SwiftCryptoContext {
        precondition(key.bytes.count == (aes256 ? 32 : 16), "AES key of \(key.bytes.count) bytes")
        return SwiftCryptoContext(key: key, encrypting: encrypting)
    }
}

/// One keyed AES-CBC context of swift-crypto for one direction: the key is made into a `SymmetricKey` once; a
/// stream's chaining value and partial block are kept between `update` calls.
///
/// Not thread-safe: use from one caller at a time (the pool hands it out exclusively).
package final class SwiftCryptoContext: AESCBCCipher, RandomIVReserve, @unchecked Sendable {
    private let key: SymmetricKey
    package let encrypting: Bool
    /// The IV of the next `AES._CBC` call: the message's IV, then the last ciphertext block processed.
    private let chain = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
    /// Bytes of an incomplete block kept by `update` for the next call (`pendingCount` of them).
    private let pending = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
    private var pendingCount = 0

    init(key: SecretBytes, encrypting: Bool) {
        self.key = SymmetricKey(data: key.bytes)
        self.encrypting = encrypting
        chain.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
        pending.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
    }

    deinit {
        wipe(pending, count: 16)
        wipe(chain, count: 16)
        pending.deallocate()
        chain.deallocate()
        freeIVReserve()
    }

    /// Random bytes drawn from the system's CSPRNG ahead of use, 16 per IV (IVReserve.swift): one `getentropy`
    /// system call per 16 IVs on Linux, where `SystemRandomNumberGenerator` makes one per 8 bytes (two per IV).
    var ivReserve = IVReserveState()
    static let ivReserveSize = 256

    /// Writes 16 fresh bytes from the system CSPRNG to `output`, each byte handed out once.
    package func randomIV(into output: UnsafeMutableRawPointer) -> Bool { takeIV(into: output) }

    /// Fills the reserve from the system: `arc4random_buf` on Apple platforms, `getentropy` elsewhere.
    func drawRandom(_ bytes: UnsafeMutableRawPointer, count: Int) -> Bool {
        CLibrary.systemRandom(bytes, count: count)
    }

    /// `AES._CBC.IV` of the 16 bytes at `bytes`. The type is its 16 bytes (a tuple; swift-crypto is pinned
    /// exactly), so the IV is loaded from them: its generic initializer, unspecialized across the module boundary,
    /// cost some 930 instructions a call (callgrind), more than the cipher of a message. `ivLoads` checks once
    /// that a loaded IV is the one the initializer makes; if it ever is not, the initializer is used.
    private static func iv(_ bytes: UnsafeRawPointer) -> AES._CBC.IV? {
        if ivLoads { return bytes.loadUnaligned(as: AES._CBC.IV.self) }
        return try? AES._CBC.IV(ivBytes: UnsafeRawBufferPointer(start: bytes, count: 16))
    }

    /// Whether loading 16 bytes as an `AES._CBC.IV` gives the IV `init(ivBytes:)` makes of them.
    private static let ivLoads: Bool = {
        guard MemoryLayout<AES._CBC.IV>.size == 16, _isPOD(AES._CBC.IV.self) else { return false }
        let bytes = (0..<16).map { UInt8($0 * 16 + 1) }
        guard let made = try? AES._CBC.IV(ivBytes: bytes) else { return false }
        let loaded = bytes.withUnsafeBytes { $0.loadUnaligned(as: AES._CBC.IV.self) }
        return Array(loaded) == bytes && Array(made) == bytes
    }()

    /// Starts a new message with `iv` (16 bytes); the key is kept.
    package func start(iv: UnsafeRawBufferPointer) -> Bool {
        precondition(iv.count == 16)
        chain.copyMemory(from: iv.baseAddress!, byteCount: 16)
        wipe(pending, count: 16)
        pendingCount = 0
        return true
    }

    /// Runs `AES._CBC` (no padding) over the whole blocks `input` from the chaining value, writing them to
    /// `output` (which may be `input` itself) and moving the chaining value on. False on failure.
    private func cipherBlocks(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) -> Bool {
        let count = input.count
        guard count > 0 else { return true }
        precondition(count % 16 == 0)
        // Decrypting, the next chaining value is the last ciphertext block of the input: read it before the
        // output (possibly the same memory) is written.
        var nextChain: (UInt64, UInt64) = (0, 0)
        if !encrypting {
            withUnsafeMutableBytes(of: &nextChain) {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: input[(count - 16)...]))
            }
        }
        guard let iv = Self.iv(chain) else { return false }
        let result: Data
        do {
            result = encrypting
                ? try AES._CBC.encrypt(input, using: key, iv: iv, noPadding: true)
                : try AES._CBC.decrypt(input, using: key, iv: iv, noPadding: true)
        } catch {
            return false
        }
        // Read once, not mutably borrowed (each access to a `Data` costs Foundation's exclusivity tracking; a
        // mutable one also its uniqueness check): the `Data` is this function's alone, so its bytes are wiped
        // through the pointer read.
        let ok = result.withUnsafeBytes { bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            let ok = bytes.count == count
            if ok { output.copyMemory(from: base, byteCount: count) }
            // Decrypting, `result` is plaintext; encrypting, it is ciphertext: wiped either way, one rule.
            wipe(UnsafeMutableRawPointer(mutating: base), count: bytes.count)
            return ok
        }
        guard ok else { return false }
        if encrypting {
            chain.copyMemory(from: output + count - 16, byteCount: 16)
        } else {
            withUnsafeBytes(of: nextChain) { chain.copyMemory(from: $0.baseAddress!, byteCount: 16) }
        }
        return true
    }

    /// Processes `input`, writing its whole blocks (with any bytes kept from the previous call) to `output` and
    /// keeping an incomplete last block for the next call; returns the count written (at most `input.count + 16`).
    package func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) -> Int? {
        guard input.count > 0 else { return 0 }
        var consumed = 0
        var written = 0
        if pendingCount > 0 {
            let take = min(16 - pendingCount, input.count)
            (pending + pendingCount).copyMemory(from: input.baseAddress!, byteCount: take)
            pendingCount += take
            consumed = take
            guard pendingCount == 16 else { return 0 }
            guard cipherBlocks(UnsafeRawBufferPointer(start: pending, count: 16), into: output) else { return nil }
            wipe(pending, count: 16)
            pendingCount = 0
            written = 16
        }
        let whole = (input.count - consumed) / 16 * 16
        if whole > 0 {
            guard cipherBlocks(UnsafeRawBufferPointer(rebasing: input[consumed..<consumed + whole]),
                               into: output + written) else { return nil }
            consumed += whole
            written += whole
        }
        let rest = input.count - consumed
        if rest > 0 {
            pending.copyMemory(from: input.baseAddress! + consumed, byteCount: rest)
            pendingCount = rest
        }
        return written
    }

    /// Finishes the message, writing at most 16 bytes to `output`: encrypting pads the kept bytes (PKCS#7) and
    /// encrypts them; decrypting writes nothing and fails only on an incomplete last block. nil on failure.
    package func finish(into output: UnsafeMutableRawPointer) -> Int? {
        defer {
            wipe(pending, count: 16)
            pendingCount = 0
        }
        guard encrypting else { return pendingCount == 0 ? 0 : nil }
        let pad = 16 - pendingCount
        (pending + pendingCount).initializeMemory(as: UInt8.self, repeating: UInt8(pad), count: pad)
        return cipherBlocks(UnsafeRawBufferPointer(start: pending, count: 16), into: output) ? 16 : nil
    }

    /// `AESCBCCipher.run` with one `AES._CBC` call per message: encrypting, the plaintext is copied and padded
    /// in `output` and encrypted from there; decrypting (whole blocks), the input is decrypted straight into
    /// `output`. Anything else takes the protocol's path.
    package func run(iv: UnsafeRawBufferPointer, input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer,
                     prefix: Int) -> Int? {
        precondition(iv.count == 16)
        guard let base = output.baseAddress, input.count > 0, input.count <= 1 << 30,
              encrypting || input.count % 16 == 0 else {
            return runRestarting(iv: iv, input: input, output: output, prefix: prefix)
        }
        guard start(iv: iv) else { return nil }
        let target = base + prefix
        if encrypting {
            let count = input.count
            let padded = (count / 16 + 1) * 16
            target.copyMemory(from: input.baseAddress!, byteCount: count)
            (target + count).initializeMemory(as: UInt8.self, repeating: UInt8(padded - count), count: padded - count)
            guard cipherBlocks(UnsafeRawBufferPointer(start: target, count: padded), into: target) else {
                wipe(target, count: padded)
                return nil
            }
            return prefix + padded
        }
        guard cipherBlocks(input, into: target) else { return nil }
        return prefix + input.count
    }
}
#endif
