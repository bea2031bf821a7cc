import PNCryptBase

/// A cipherKey with its derived AES keys, computed once (docs/formats.md section 1).
///
/// - `legacy` / `legacy-random-iv`: the first 32 characters of the lowercase hex SHA-256 of the key's UTF-8
///   bytes, used as 32 ASCII bytes (so half of the key bits are fixed: CVE-2023-26154).
/// - `acrh`: the raw 32-byte SHA-256.
/// - `legacy33`: the raw 16-byte MD5, for AES-128.
///
/// Keyed cipher contexts are pooled and reused across messages, so encrypting many messages with one
/// `CipherKey` costs a key schedule once, not per message. Thread-safe.
///
/// The key's bytes and its derived keys are held in storage that is wiped when the last reference goes; they are
/// not readable through the public interface. What the caller passed in (a `String`, an array) is the caller's
/// and is not wiped (docs/security.md, "Secrets in memory").
public final class CipherKey: Sendable {
    /// The key's UTF-8 bytes, exactly as given.
    private let utf8: SecretBytes
    package let legacy: SecretBytes
    package let raw: SecretBytes
    package let md5: SecretBytes
    /// The context pools, two per key derivation. Stored constants, not an array: a pool read from one is borrowed
    /// for a message, where an array element was retained and released (two atomic operations per message).
    private let hexSHA256Pools: PoolPair, sha256Pools: PoolPair, md5Pools: PoolPair

    /// The pools of one derived key, one per direction.
    private struct PoolPair: Sendable {
        let encrypting: ContextPool
        let decrypting: ContextPool

        init(_ secret: SecretBytes) {
            let aes256 = secret.bytes.count == 32
            encrypting = ContextPool(aes256: aes256, key: secret, encrypting: true)
            decrypting = ContextPool(aes256: aes256, key: secret, encrypting: false)
        }

        func withContext<R, E: Error>(encrypting direction: Bool, _ body: (Backend.Context) throws(E) -> R)
            throws(E) -> R {
            try direction ? encrypting.withContext(body) : decrypting.withContext(body)
        }
    }

    /// Derives the keys of every scheme from `string` (its UTF-8 bytes).
    /// - Throws: `PNCryptError.invalidKey` when the key is empty or holds a NUL character.
    public convenience init(_ string: String) throws(PNCryptError) {
        try self.init(validUTF8: Array(string.utf8))
    }

    /// Derives the keys from `bytes`, which must be valid UTF-8: a key is never decoded lossily, so two different
    /// byte strings are never taken for the same key (`\xff` and `\xfe` would both become U+FFFD).
    /// - Throws: `PNCryptError.invalidKey` when the key is empty, holds a NUL character or is not valid UTF-8 (the
    ///   offset of the first bad byte is in the error).
    public convenience init(bytes: some Collection<UInt8>) throws(PNCryptError) {
        var array = Array(bytes)
        if let offset = Self.firstInvalidUTF8Offset(array) {
            let count = array.count
            wipe(&array)
            throw PNCryptError(.invalidKey, "the cipher key is not valid UTF-8 (byte \(offset + 1) of \(count))",
                               offset: offset)
        }
        try self.init(validUTF8: array)
    }

    /// Derives the keys from `utf8` (valid UTF-8), whose storage the key takes over and wipes.
    ///
    /// A NUL character is refused here, for every source alike: C strings end at NUL, so a key holding one could
    /// be written by one shell (a key file read by the CLI) and never given to another (the C library takes the key
    /// as a C string, the Python binding through it), and the data it encrypted could be read back by none of them.
    private convenience init(validUTF8 utf8: [UInt8]) throws(PNCryptError) {
        guard !utf8.isEmpty else { throw PNCryptError(.invalidKey, "the cipher key is empty") }
        if let offset = utf8.firstIndex(of: 0) {
            // `utf8` is the only reference to its storage (the callers hand it over): wiped through a pointer,
            // not through a copy.
            utf8.withUnsafeBytes { wipe(UnsafeMutableRawPointer(mutating: $0.baseAddress!), count: $0.count) }
            throw PNCryptError(.invalidKey, "the cipher key has a NUL character (byte \(offset + 1) of"
                               + " \(utf8.count)): a C string cannot hold it", offset: offset)
        }
        let sha = Backend.sha256(utf8)
        var hex = [UInt8]()
        hex.reserveCapacity(32)
        Hex.append(sha.prefix(16), to: &hex)
        // `utf8`, `hex`, `sha` and the MD5 hand their storage to the SecretBytes that wipe it (wiping them here
        // would only copy the shared storage and wipe the copy).
        self.init(utf8: SecretBytes(utf8), legacy: SecretBytes(hex), raw: SecretBytes(sha),
                  md5: SecretBytes(Backend.md5(utf8)))
    }

    /// A key of the derived keys given, with cipher contexts of its own.
    private init(utf8: SecretBytes, legacy: SecretBytes, raw: SecretBytes, md5: SecretBytes) {
        self.utf8 = utf8
        self.legacy = legacy
        self.raw = raw
        self.md5 = md5
        hexSHA256Pools = PoolPair(legacy)
        sha256Pools = PoolPair(raw)
        md5Pools = PoolPair(md5)
    }

    /// The same key with cipher contexts of its own, sharing the derived keys (nothing is derived again, and no
    /// copy of the key's bytes is made): for a thread that should share no context pool with others.
    package func withOwnContexts() -> CipherKey {
        CipherKey(utf8: utf8, legacy: legacy, raw: raw, md5: md5)
    }

    /// Whether `other` is the same key (the same bytes), compared in time that does not depend on where they differ.
    package func isSame(as other: CipherKey) -> Bool {
        let (a, b) = (utf8.bytes, other.utf8.bytes)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    /// The offset of the first byte of `bytes` that is not part of valid UTF-8, nil when all of it is.
    static func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { firstInvalidUTF8(in: $0) }
    }

    /// Why this key may not be the one meant, when its shape suggests a copy or file mistake: a byte order mark,
    /// white space at either end, or a line break inside. Nil for an ordinary key. Shown with a decryption failure
    /// and by `diagnose`; such keys are still used exactly as given.
    package var shapeHint: String? {
        // The scalars are decoded from the wiped bytes one at a time: no String copy of the key is made.
        var scalars: [Unicode.Scalar] = []
        var iterator = utf8.bytes.makeIterator()
        var decoder = UTF8()
        while case .scalarValue(let scalar) = decoder.decode(&iterator) { scalars.append(scalar) }
        defer { scalars.withUnsafeMutableBytes { if let base = $0.baseAddress { wipe(base, count: $0.count) } } }
        if scalars.first == "\u{FEFF}" { return "the key starts with a byte order mark (U+FEFF)" }
        if let first = scalars.first, first.properties.isWhitespace { return "the key starts with white space" }
        if let last = scalars.last, last.properties.isWhitespace {
            return last == "\n" || last == "\r" ? "the key ends with a line break" : "the key ends with white space"
        }
        if scalars.contains(where: { $0 == "\n" || $0 == "\r" }) { return "the key contains a line break" }
        return nil
    }

    /// The AES key bytes `scheme` uses (for tests and diagnostics; treat as secret).
    package func keyBytes(for scheme: Scheme) -> [UInt8] {
        secret(scheme.row.keyDerivation).bytes
    }

    /// The AES key a derivation gives.
    private func secret(_ derivation: Scheme.KeyDerivation) -> SecretBytes {
        switch derivation {
        case .hexSHA256: legacy
        case .sha256: raw
        case .md5: md5
        }
    }

    /// The context pool for `scheme` in one direction: two per key derivation (schemes that share a key share
    /// its contexts).
    package func pool(_ scheme: Scheme, encrypting: Bool) -> ContextPool {
        withPools(scheme) { encrypting ? $0.encrypting : $0.decrypting }
    }

    /// Runs `body` with a context of `scheme`'s pool in one direction (`ContextPool.withContext`): the message
    /// paths' way in, which borrows the pool where `pool(_:encrypting:)` hands out a reference (retained).
    @inline(__always)
    package func withContext<R, E: Error>(_ scheme: Scheme, encrypting: Bool,
                                          _ body: (Backend.Context) throws(E) -> R) throws(E) -> R {
        try withPools(scheme) { (pools) throws(E) in try pools.withContext(encrypting: encrypting, body) }
    }

    /// Runs `body` with the pools of `scheme`'s key derivation, lent (not copied: a copy retains both pools).
    @inline(__always)
    private func withPools<R, E: Error>(_ scheme: Scheme, _ body: (borrowing PoolPair) throws(E) -> R) throws(E) -> R {
        switch scheme.row.keyDerivation {
        case .hexSHA256: try body(hexSHA256Pools)
        case .sha256: try body(sha256Pools)
        case .md5: try body(md5Pools)
        }
    }
}
