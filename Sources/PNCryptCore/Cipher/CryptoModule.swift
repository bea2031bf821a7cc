import PNCryptBase
import PNCryptJSON

/// Encrypts and decrypts bytes with one cipherKey in the four schemes (docs/formats.md sections 1 and 2).
///
/// ```swift
/// let module = try CryptoModule(cipherKey: "enigma")            // writes acrh, reads any header or legacy
/// let sealed = try module.encrypt(Array("hello".utf8))          // Base64 of PNED 01 ACRH 10 <IV> <ciphertext>
/// let opened = try module.decrypt(sealed)                        // reads the header, picks the cryptor
/// let old = try module.encrypt(Array("yay!".utf8), scheme: .legacy)   // fixed IV: "q/xJqqN6qbiZMXYmiQC1Fw=="
/// let bytes = try module.encryptBinary(Array("hello".utf8))     // the same without Base64 (files, raw bytes)
/// ```
///
/// `decrypt(_:)` reads as `reading` says (`ReadPolicy`): by default a `PNED` header when there is one, and headerless
/// data by the headerless rule over both legacy readings (docs/formats.md section 1): as bytes, a fixed-IV reading
/// whose first block is text is taken, and anything else of two blocks or more is `ambiguous` (nothing in bytes tells
/// the two apart: decrypt text with `KeyRing` and `.text`, messages with `MessageCrypto`, or set `reading` to
/// `.headerlessAs(.legacy)` or `.headerlessAs(.legacyRandomIV)`). Unless `reading` is `.only`, headerless data is
/// also read as the module's own scheme when it writes a headerless one (`scheme` `legacy`, `legacyRandomIV` or
/// `legacy33`, which then replaces the rule), so a module always reads its own output. The one decision procedure
/// chooses, as for `KeyRing` with `.bytes`: the plaintext is returned only when exactly one reading qualifies; none
/// is `decryptionFailed`. `decrypt(_:reading:)` with `.only` reads exactly one format. CBC has no integrity check:
/// with one reading a wrong key passes the padding check about once in 256 tries and gives garbage (use `KeyRing`
/// with `.text`, or `MessageCrypto`, to check more). `encryptBinary` and `decryptBinary` are the same without
/// Base64. Errors follow docs/formats.md section 2 (`PNCryptError.category`): encryption, decryption, or unknown
/// cryptor. Thread-safe; keyed cipher contexts are reused across calls.
public struct CryptoModule: Sendable {
    /// The key and its derived AES keys.
    package let key: CipherKey
    /// The scheme `encrypt(_:)` writes. Default `acrh`.
    public var scheme: Scheme
    /// How `decrypt(_:)` reads (`ReadPolicy`). Default `.rule`. Unless it is `.only`, data without a `PNED` header
    /// is also read as `scheme` when that is headerless (`.headerlessAs(.acrh)`, which refuses headerless data,
    /// then reads only the module's own scheme; with `.rule`, the module's own scheme replaces the rule).
    public var reading: ReadPolicy

    /// A module for `cipherKey`.
    /// - Throws: `invalidKey` when the key is empty.
    public init(cipherKey: String, scheme: Scheme = .defaultForWriting, reading: ReadPolicy = .rule)
        throws(PNCryptError) {
        self.init(key: try CipherKey(cipherKey), scheme: scheme, reading: reading)
    }

    /// A module for an already derived key (share one `CipherKey` between modules to share its contexts).
    public init(key: CipherKey, scheme: Scheme = .defaultForWriting, reading: ReadPolicy = .rule) {
        self.key = key
        self.scheme = scheme
        self.reading = reading
    }

    // MARK: Encrypt

    /// Encrypts `plaintext` and returns standard padded Base64: the text a message carries.
    ///
    /// - Parameters:
    ///   - plaintext: the bytes to encrypt (not empty).
    ///   - scheme: the scheme to write; nil is the module's `scheme`.
    ///   - iv: 16 bytes to use instead of a random IV (for deterministic test vectors). `legacy` and `legacy33`
    ///     accept only their fixed IV. Never reuse an IV for real data.
    /// - Throws: `emptyPlaintext` for empty input, in every scheme (docs/formats.md section 3); `invalidIV`.
    public func encrypt(_ plaintext: some Collection<UInt8>, scheme: Scheme? = nil, iv: [UInt8]? = nil)
        throws(PNCryptError) -> String {
        let text = try withBytes(plaintext) { (input) throws(PNCryptError) in
            try key.sealToBase64(input, scheme: scheme ?? self.scheme, iv: iv, quoted: false)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Encrypts `plaintext` and returns the bytes (as `encrypt(_:scheme:iv:)`, without the Base64).
    /// - Returns: `legacy`/`legacy33`: ciphertext; `legacyRandomIV`: IV ‖ ciphertext; `acrh`: header ‖ ciphertext.
    public func encryptBinary(_ plaintext: some Collection<UInt8>, scheme: Scheme? = nil, iv: [UInt8]? = nil)
        throws(PNCryptError) -> [UInt8] {
        try withBytes(plaintext) { (input) throws(PNCryptError) in
            try key.sealToBytes(input, scheme: scheme ?? self.scheme, iv: iv)
        }
    }

    // MARK: Decrypt

    /// Decodes Base64 text (lenient as `Base64.decode`) and decrypts it.
    ///
    /// - Parameters:
    ///   - text: the Base64 text (whitespace and line breaks are skipped).
    ///   - reading: how to read, for this call; nil is the module's `reading` (exactly one of the readings it
    ///     allows must have valid padding).
    /// - Throws: `notBase64`; `unknownCryptor` for an unsupported header version or cryptor id; `malformedHeader`
    ///   for a header cut short; `wrongKeyOrCorrupt` when the cipher rejects the data (bad padding, not whole
    ///   blocks, empty); `ambiguous` when two readings have valid padding. Every failure that depends on the key is
    ///   the same error, with the same message (no
    ///   padding oracle).
    public func decrypt(_ text: String, reading: ReadPolicy? = nil) throws(PNCryptError) -> [UInt8] {
        try decryptBinary(try Base64.decode(text), reading: reading)
    }

    /// Decrypts bytes (as `decrypt(_:reading:)`, without the Base64).
    public func decryptBinary(_ data: some Collection<UInt8>, reading: ReadPolicy? = nil) throws(PNCryptError)
        -> [UInt8] {
        let policy = reading ?? self.reading
        return try withBytes(data) { (input) throws(PNCryptError) in try openToBytes(input, reading: policy) }
    }

    /// The scheme `decryptBinary(_:)` would use for `data`, after reading its header if it has one.
    package func detectScheme(_ data: some Collection<UInt8>) throws(PNCryptError) -> Scheme {
        let headerless = headerlessReading(reading) ?? Scheme.headerlessPair.fixed
        guard let (header, _) = try CryptorHeader.parse(data) else { return headerless }
        return try header.scheme(reading: nil) ?? headerless
    }

    /// The one error every key-dependent failure gives (bad padding, plaintext that is not UTF-8 or not JSON where
    /// text was required): which check failed is not told, so it cannot serve as a padding oracle.
    /// `Diagnosis`, run with the key, explains in detail.
    public static let decryptionFailed = PNCryptError(
        .wrongKeyOrCorrupt, "cannot decrypt: wrong key, wrong scheme, or corrupt data")
}

// MARK: The encrypt path and one reading's decryption
//
// Ownership: every pointer here is borrowed for the duration of one call. Input buffers belong to the caller.
// Output buffers are the caller's (`into output:` has the documented room) or scratch from `withScratch`, which
// never escapes the call. Scratch and outputs that may hold plaintext of a failed decryption are wiped before
// they are released or returned. Cipher contexts come from the key's `ContextPool`, one caller at a time.

// The encrypt path needs the key only: it is the key's, so that a message path borrows the key it holds instead
// of copying it into a `CryptoModule` (a retain and a release per message).
extension CipherKey {
    /// The one encrypt path: writes `scheme`'s output for `input` (the `acrh` header or the random IV, then the
    /// ciphertext) to `output`, which has room for `Cryptor.sealedLength(input.count, scheme:)` bytes; returns
    /// the count written. Random IVs come from the context's reserve of CSPRNG output.
    @inline(__always)
    package func seal(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv explicitIV: [UInt8]?,
                      allowEmpty: Bool = false, into output: UnsafeMutableRawPointer) throws(PNCryptError) -> Int {
        let prefix = Cryptor.prefixLength(scheme)
        // The fixed IV is read in place below: a copy of it (`checkIV`'s result) is a retain and a release.
        let givenIV: [UInt8]?
        if prefix == 0 {
            try Cryptor.checkFixedIV(explicitIV, scheme: scheme)
            givenIV = nil
        } else {
            givenIV = try Cryptor.checkIV(explicitIV, scheme: scheme)
        }
        try Cryptor.checkNotEmpty(input.count, scheme: scheme, allowEmpty: allowEmpty)
        let sealedCount = Cryptor.sealedLength(input.count, scheme: scheme)
        let sealed = UnsafeMutableRawBufferPointer(start: output, count: sealedCount)
        if scheme.hasHeader { CryptorHeader.writeACRHStart(to: output) }
        let n = try withContext(scheme, encrypting: true) { (context) throws(PNCryptError) -> Int? in
            guard prefix > 0 else {
                // The fixed IV: nothing before the ciphertext.
                return Cryptor.fixedIV.withUnsafeBytes {
                    context.run(iv: $0, input: input, output: sealed, prefix: 0)
                }
            }
            // The IV ends the prefix (the header's metadata, or the whole prefix of legacy-random-iv).
            let ivStart = output + prefix - Cryptor.blockSize
            if let givenIV {
                givenIV.withUnsafeBytes { ivStart.copyMemory(from: $0.baseAddress!, byteCount: Cryptor.blockSize) }
            } else if !context.randomIV(into: ivStart) {
                throw PNCryptError(.encryptionFailed, "the random number generator failed")
            }
            let iv = UnsafeRawBufferPointer(start: ivStart, count: Cryptor.blockSize)
            return context.run(iv: iv, input: input, output: sealed, prefix: prefix)
        }
        guard let n, n == sealedCount else {
            throw PNCryptError(.encryptionFailed, "the AES cipher failed to encrypt")
        }
        return n
    }

    /// `seal`, returned as the Base64 of the output; with `quoted`, as a JSON string literal. The output goes to
    /// scratch memory (the stack for a message) and is encoded straight into the one array returned.
    package func sealToBase64(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv: [UInt8]?, quoted: Bool,
                      allowEmpty: Bool = false) throws(PNCryptError) -> [UInt8] {
        try withScratch(Cryptor.sealedLength(input.count, scheme: scheme)) { (sealed) throws(PNCryptError) in
            let n = try seal(input, scheme: scheme, iv: iv, allowEmpty: allowEmpty, into: sealed.baseAddress!)
            return Base64.encode(UnsafeRawBufferPointer(rebasing: sealed[0..<n]), quoted: quoted)
        }
    }

    /// `seal`, returned as an array.
    func sealToBytes(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv: [UInt8]?)
        throws(PNCryptError) -> [UInt8] {
        try makeBytes(capacity: Cryptor.sealedLength(input.count, scheme: scheme)) { (output) throws(PNCryptError) in
            try seal(input, scheme: scheme, iv: iv, into: output)
        }
    }
}

extension CryptoModule {
    /// Decrypts `input` (as `decryptBinary(_:reading:)`) into a new array.
    func openToBytes(_ input: UnsafeRawBufferPointer, reading policy: ReadPolicy)
        throws(PNCryptError) -> [UInt8] {
        try makeBytes(capacity: input.count + Cryptor.blockSize) { (output) throws(PNCryptError) in
            try decrypt(input, reading: policy, into: output)
        }
    }

    /// Decrypts `input` (as `decryptBinary(_:reading:)`) into `output`, which has room for `input.count + 16`
    /// bytes; returns the plaintext length. The readings are `readings(of:reading:)`'s, and the one decision
    /// procedure (`Decision`, content `.bytes`) chooses.
    package func decrypt(_ input: UnsafeRawBufferPointer, reading policy: ReadPolicy,
                         into output: UnsafeMutableRawPointer)
        throws(PNCryptError) -> Int {
        let readings = try readings(of: input, reading: policy)
        return try Decision.open(input, keys: [key], first: key, readings: readings, content: .bytes,
                                 into: output).count
    }

    /// The readings `decrypt` tries under `policy`: with `.only`, that format alone; otherwise the `PNED` header's
    /// cryptor, and for headerless data the policy's headerless scheme (or the rule's two) and the module's own
    /// `scheme` when it is headerless (`legacy`, `legacy-random-iv`, `legacy33`).
    package func readings<C: Collection<UInt8>>(of input: C, reading policy: ReadPolicy) throws(PNCryptError)
        -> Cryptor.Readings where C.Index == Int {
        let policy = ReadPolicy(scheme: policy.scheme, legacyScheme: headerlessReading(policy))
        return try Cryptor.readings(of: input, reading: policy, also: scheme.hasHeader ? nil : scheme)
    }

    /// How headerless data is read under `policy`: its headerless scheme, else the module's own scheme when it is
    /// headerless, else nil (both legacy readings, the headerless rule).
    func headerlessReading(_ policy: ReadPolicy) -> Scheme? {
        policy.legacyScheme ?? (scheme.hasHeader ? nil : scheme)
    }

    /// `open`, also returning the length of the whole decrypted body (padding included), over which the checks
    /// of `Decision.verdict` run whatever the padding gave.
    package func openChecked(_ reading: Cryptor.Reading, of input: UnsafeRawBufferPointer,
                     into output: UnsafeMutableRawPointer) -> (count: Int, length: Int, valid: Bool) {
        let opened = open(reading, of: input, into: output)
        return (opened.count, reading.body.count, opened.valid)
    }

    /// Decrypts one reading of `input` with this key into `output` (room for the body's length + 16) and removes
    /// the padding in constant time. The output holds the whole body when the padding is not valid (to be wiped).
    func open(_ reading: Cryptor.Reading, of input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer)
        -> (count: Int, valid: Bool) {
        let body = UnsafeRawBufferPointer(rebasing: input[reading.body])
        let out = UnsafeMutableRawBufferPointer(start: output, count: body.count + Cryptor.blockSize)
        let n = if let iv = reading.iv {
            key.withContext(reading.scheme, encrypting: false) {
                $0.run(iv: UnsafeRawBufferPointer(rebasing: input[iv]), input: body, output: out, prefix: 0)
            }
        } else {
            Cryptor.fixedIV.withUnsafeBytes { fixed in
                key.withContext(reading.scheme, encrypting: false) {
                    $0.run(iv: fixed, input: body, output: out, prefix: 0)
                }
            }
        }
        guard let n else { return (body.count, false) }
        return PKCS7.unpad(UnsafeRawBufferPointer(start: output, count: n))
    }
}
