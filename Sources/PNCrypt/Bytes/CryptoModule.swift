/// Encrypts and decrypts bytes with one cipherKey in the four schemes (SPEC sections 1 and 2).
///
/// ```swift
/// let module = try CryptoModule(cipherKey: "enigma")            // writes acrh, reads any header or legacy
/// let sealed = try module.encrypt(Array("hello".utf8))          // Base64 of PNED 01 ACRH 10 <IV> <ciphertext>
/// let opened = try module.decrypt(sealed)                        // reads the header, picks the cryptor
/// let old = try module.encrypt(Array("yay!".utf8), scheme: .legacy)   // fixed IV: "q/xJqqN6qbiZMXYmiQC1Fw=="
/// let bytes = try module.encryptBinary(Array("hello".utf8))     // the same without Base64 (files, raw bytes)
/// ```
///
/// `decrypt(_:)` reads a `PNED` header when there is one and otherwise uses `legacyScheme`: nothing in
/// legacy data says whether it has a random IV, so the reader must be told. `decrypt(_:scheme:)` reads
/// exactly one format. `encryptBinary` and `decryptBinary` are the same without Base64. Errors follow SPEC
/// section 2 (`PNCryptError.category`): encryption, decryption, or unknown cryptor. Thread-safe; keyed cipher contexts are reused across calls.
public struct CryptoModule: Sendable {
    /// The key and its derived AES keys.
    public let key: CipherKey
    /// The scheme `encrypt(_:)` writes. Default `acrh`.
    public var encryptionScheme: Scheme
    /// How `decrypt(_:)` reads data that has no `PNED` header: `legacy` (default), `legacyRandomIV` or
    /// `legacy33`. Setting `acrh` here means headerless data is refused.
    public var legacyScheme: Scheme

    /// The fixed IV of `legacy` and `legacy33`: ASCII `0123456789012345`.
    static let fixedIV: [UInt8] = Array("0123456789012345".utf8)

    /// A module for `cipherKey`.
    /// - Throws: `invalidKey` when the key is empty.
    public init(cipherKey: String, encryptionScheme: Scheme = .acrh, legacyScheme: Scheme = .legacy)
        throws(PNCryptError) {
        self.init(key: try CipherKey(cipherKey), encryptionScheme: encryptionScheme, legacyScheme: legacyScheme)
    }

    /// A module for an already derived key (share one `CipherKey` between modules to share its contexts).
    public init(key: CipherKey, encryptionScheme: Scheme = .acrh, legacyScheme: Scheme = .legacy) {
        self.key = key
        self.encryptionScheme = encryptionScheme
        self.legacyScheme = legacyScheme
    }

    // MARK: Encrypt

    /// Encrypts `plaintext` and returns standard padded Base64: the text a message carries.
    ///
    /// - Parameters:
    ///   - scheme: the scheme to write; nil is `encryptionScheme`.
    ///   - iv: 16 bytes to use instead of a random IV (for deterministic test vectors). `legacy` and `legacy33`
    ///     accept only their fixed IV. Never reuse an IV for real data.
    /// - Throws: `emptyPlaintext` for empty input, in every scheme (SPEC section 3); `invalidIV`.
    public func encrypt(_ plaintext: some Collection<UInt8>, scheme: Scheme? = nil, iv: [UInt8]? = nil)
        throws(PNCryptError) -> String {
        let text = try withBytes(plaintext) { (buffer) throws(PNCryptError) in
            try sealToBase64(buffer, scheme: scheme ?? encryptionScheme, iv: iv, quoted: false)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Encrypts `plaintext` and returns the bytes (as `encrypt(_:scheme:iv:)`, without the Base64).
    /// - Returns: `legacy`/`legacy33`: ciphertext; `legacyRandomIV`: IV ‖ ciphertext; `acrh`: header ‖ ciphertext.
    public func encryptBinary(_ plaintext: some Collection<UInt8>, scheme: Scheme? = nil, iv: [UInt8]? = nil)
        throws(PNCryptError) -> [UInt8] {
        try withBytes(plaintext) { (buffer) throws(PNCryptError) in
            try encryptBytes(buffer, scheme: scheme ?? encryptionScheme, iv: iv)
        }
    }

    /// Encrypts `input` in `scheme` and returns the Base64 of the result, with `quoted` as a JSON string literal.
    ///
    /// The message fast path: the ciphertext goes to scratch memory (the stack for a message) and is encoded
    /// straight into the one array returned; the header and IV are written in place, and random IVs come from the
    /// context's reserve of `RAND_bytes` output.
    func sealToBase64(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv explicitIV: [UInt8]?,
                      quoted: Bool, allowEmpty: Bool = false) throws(PNCryptError) -> [UInt8] {
        if let explicitIV { _ = try Self.resolveIV(explicitIV, scheme: scheme) }
        try Self.checkNotEmpty(input.count, scheme: scheme, allowEmpty: allowEmpty)
        // PKCS#7 always adds 1...16 bytes: the ciphertext length is exact.
        let prefix = scheme == .acrh ? Self.acrhHeaderCount : scheme == .legacyRandomIV ? 16 : 0
        let sealedCount = prefix + (input.count / 16 + 1) * 16
        let pool = key.pool(scheme, encrypting: true)
        return try withScratch(sealedCount) { (sealed) throws(PNCryptError) -> [UInt8] in
            let base = sealed.baseAddress!
            let ivStart = prefix - 16
            if scheme == .acrh {
                Self.acrhHeaderStart.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
            let n = try pool.withContext { (context) throws(PNCryptError) -> Int? in
                switch scheme {
                case .legacy, .legacy33:
                    return Self.fixedIV.withUnsafeBytes { iv in
                        context.run(iv: iv, input: input, output: sealed, prefix: 0)
                    }
                case .legacyRandomIV, .acrh:
                    if let explicitIV {
                        explicitIV.withUnsafeBytes { (base + ivStart).copyMemory(from: $0.baseAddress!, byteCount: 16) }
                    } else if !context.randomIV(into: base + ivStart) {
                        throw PNCryptError(.encryptionFailed, "the random number generator (RAND_bytes) failed")
                    }
                    return context.run(iv: UnsafeRawBufferPointer(start: base + ivStart, count: 16), input: input,
                                       output: sealed, prefix: prefix)
                }
            }
            guard let n, n == sealedCount else {
                throw PNCryptError(.encryptionFailed, "the AES cipher failed to encrypt")
            }
            return Base64.encode(UnsafeRawBufferPointer(sealed), quoted: quoted)
        }
    }

    /// `PNED`, version 1, `ACRH`, metadata length 16: the 10 bytes before the IV in every header pncrypt writes.
    static let acrhHeaderStart: [UInt8] = CryptorHeader.sentinel + [CryptorHeader.currentVersion]
        + CryptorHeader.aesCBCCryptorID + [16]
    /// The length of an `acrh` header with its 16-byte IV.
    static let acrhHeaderCount = 26

    func encryptBytes(_ input: UnsafeRawBufferPointer, scheme: Scheme, iv explicitIV: [UInt8]?)
        throws(PNCryptError) -> [UInt8] {
        let iv = try Self.resolveIV(explicitIV, scheme: scheme)
        try Self.checkNotEmpty(input.count, scheme: scheme, allowEmpty: false)
        var prefix: [UInt8] = []
        switch scheme {
        case .legacy, .legacy33: break
        case .legacyRandomIV: prefix = iv
        case .acrh: prefix = try CryptorHeader(metadata: iv).encoded()
        }
        let capacity = prefix.count + input.count + 16
        let pool = key.pool(scheme, encrypting: true)
        var failed = false
        let out = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            prefix.withUnsafeBytes { raw.copyMemory(from: $0) }
            let n = iv.withUnsafeBytes { ivBytes in
                pool.withContext { $0.run(iv: ivBytes, input: input, output: raw, prefix: prefix.count) }
            }
            if let n { initialized = n } else { failed = true; initialized = 0 }
        }
        guard !failed else { throw PNCryptError(.encryptionFailed, "the AES cipher failed to encrypt") }
        return out
    }

    /// Empty data cannot be encrypted, in any scheme (SPEC section 3: PubNub's contract expects an encryption
    /// error). `allowEmpty` is for the string leaves of `legacy33` messages, where iOS 3.3 encrypted `""` too.
    static func checkNotEmpty(_ count: Int, scheme: Scheme, allowEmpty: Bool) throws(PNCryptError) {
        guard count == 0 && !allowEmpty else { return }
        throw PNCryptError(.emptyPlaintext, "cannot encrypt empty data with \(scheme) (nothing to encrypt)")
    }

    static func resolveIV(_ iv: [UInt8]?, scheme: Scheme) throws(PNCryptError) -> [UInt8] {
        switch scheme {
        case .legacy, .legacy33:
            if let iv, iv != fixedIV {
                throw PNCryptError(.invalidIV, "\(scheme) always uses the fixed IV 0123456789012345")
            }
            return fixedIV
        case .legacyRandomIV, .acrh:
            guard let iv else { return try OpenSSL.randomBytes(16) }
            guard iv.count == 16 else {
                throw PNCryptError(.invalidIV, "the IV must be 16 bytes, not \(iv.count)")
            }
            return iv
        }
    }

    // MARK: Decrypt

    /// Decodes Base64 text (lenient as `Base64.decode`) and decrypts it.
    ///
    /// - Parameter scheme: nil reads a `PNED` header when there is one and otherwise reads as `legacyScheme`;
    ///   a scheme reads exactly that format (`acrh` requires a header; the others never look for one).
    /// - Throws: `notBase64`; `unknownCryptor` for an unsupported header version or cryptor id; `malformedHeader`
    ///   for a header cut short; `wrongKeyOrCorrupt` when the cipher rejects the data (bad padding, not whole
    ///   blocks, empty). Every failure that depends on the key is the same error, with the same message (no
    ///   padding oracle).
    public func decrypt(_ text: String, scheme: Scheme? = nil) throws(PNCryptError) -> [UInt8] {
        let bytes = try Base64.decode(text)
        return try withBytes(bytes) { (buffer) throws(PNCryptError) in try decryptBytes(buffer, scheme: scheme) }
    }

    /// Decrypts bytes (as `decrypt(_:scheme:)`, without the Base64).
    public func decryptBinary(_ data: some Collection<UInt8>, scheme: Scheme? = nil) throws(PNCryptError) -> [UInt8] {
        try withBytes(data) { (buffer) throws(PNCryptError) in try decryptBytes(buffer, scheme: scheme) }
    }

    /// The scheme `decryptBinary(_:)` would use for `data`, after reading its header if it has one.
    func detectScheme(_ data: some Collection<UInt8>) throws(PNCryptError) -> Scheme {
        if let first = data.first, first != CryptorHeader.sentinel[0] { return legacyScheme }
        guard let (header, _) = try CryptorHeader.parse(data) else { return legacyScheme }
        return try Self.cryptor(for: header, explicit: nil) ?? legacyScheme
    }

    func decryptBytes(_ input: UnsafeRawBufferPointer, scheme explicit: Scheme?) throws(PNCryptError) -> [UInt8] {
        var failure: PNCryptError?
        let out = [UInt8](unsafeUninitializedCapacity: input.count + 16) { buffer, initialized in
            do throws(PNCryptError) {
                initialized = try decrypt(input, scheme: explicit, into: UnsafeMutableRawPointer(buffer.baseAddress!))
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return out
    }

    /// Decrypts `input` (as `decrypt(_:scheme:)`; `explicit` nil detects) into `output`, which has room for
    /// `input.count + 16` bytes; returns the plaintext length. One reading: valid padding is enough.
    func decrypt(_ input: UnsafeRawBufferPointer, scheme explicit: Scheme?, into output: UnsafeMutableRawPointer)
        throws(PNCryptError) -> Int {
        try openVerified(try Self.readings(of: input, scheme: explicit, legacyScheme: legacyScheme)[0], of: input,
                         into: output)
    }

    /// `open`, for a reading that needs no choice: the plaintext length, or (output wiped) the one failure.
    func openVerified(_ reading: Reading, of input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer)
        throws(PNCryptError) -> Int {
        let opened = open(reading, of: input, into: output)
        guard opened.valid else {
            OpenSSL.cleanse(output, count: reading.body.count + 16)
            throw Self.decryptionFailed
        }
        return opened.count
    }

    /// One way to read some bytes: the scheme, where its IV is (nil: the fixed IV) and where the ciphertext is.
    struct Reading: Hashable, Sendable {
        var scheme: Scheme
        var iv: Range<Int>?
        var body: Range<Int>
    }

    /// The readings of `input` that `explicit` allows (nil: a `PNED` header picks the cryptor; headerless data is
    /// read as `legacyScheme`, or, when that is nil too, both as `legacy` and as `legacy-random-iv`). Whatever
    /// the key, these are the only ones: a header, a length or a block count rules the others out.
    /// - Throws: the format errors (`malformedHeader`, `unknownCryptor`, a length that no reading accepts).
    static func readings(of input: UnsafeRawBufferPointer, scheme explicit: Scheme?, legacyScheme: Scheme?)
        throws(PNCryptError) -> [Reading] {
        var candidates: [Reading] = []
        switch explicit {
        case .legacy?, .legacy33?, .legacyRandomIV?:
            candidates = [legacyReading(explicit!, count: input.count, from: 0)]
        case .acrh?, nil:
            if hasACRHHeader(input) {
                // The header pncrypt and every SDK write.
                candidates = [Reading(scheme: .acrh, iv: 10..<26, body: acrhHeaderCount..<input.count)]
            } else if let (header, length) = try CryptorHeader.parse(input) {
                if try cryptor(for: header, explicit: explicit) == .acrh {
                    // A longer encoding of the metadata length (0xFF, 0x00, 0x10): the IV ends the header.
                    candidates = [Reading(scheme: .acrh, iv: (length - 16)..<length, body: length..<input.count)]
                } else {
                    // The legacy cryptor's id: what follows the header is legacy data.
                    candidates = try legacyReadings(legacyScheme, of: input, from: length)
                }
            } else if explicit == .acrh {
                throw noHeader(input)
            } else {
                candidates = try legacyReadings(legacyScheme, of: input, from: 0)
            }
        }
        // A reading whose ciphertext is empty or not whole blocks cannot be right, whatever the key. When none is
        // left, the first one's reason is the error.
        var firstError: PNCryptError?
        var usable: [Reading] = []
        for reading in candidates {
            do throws(PNCryptError) {
                try checkBlocks(reading)
                usable.append(reading)
            } catch {
                firstError = firstError ?? error
            }
        }
        if usable.isEmpty { throw firstError! }
        return usable
    }

    private static func legacyReadings(_ legacyScheme: Scheme?, of input: UnsafeRawBufferPointer, from start: Int)
        throws(PNCryptError) -> [Reading] {
        let count = input.count
        if legacyScheme == .acrh { throw noHeader(UnsafeRawBufferPointer(rebasing: input[start...])) }
        guard let legacyScheme else {
            return [legacyReading(.legacy, count: count, from: start), legacyReading(.legacyRandomIV, count: count,
                                                                                      from: start)]
        }
        return [legacyReading(legacyScheme, count: count, from: start)]
    }

    private static func legacyReading(_ scheme: Scheme, count: Int, from start: Int) -> Reading {
        guard scheme == .legacyRandomIV else { return Reading(scheme: scheme, iv: nil, body: start..<count) }
        // Shorter than an IV: an empty body (refused by `checkBlocks` with the reason).
        let ivEnd = min(start + 16, count)
        return Reading(scheme: scheme, iv: start..<ivEnd, body: ivEnd..<count)
    }

    /// Decrypts one reading of `input` with this key into `output` (room for the body's length) and removes the
    /// padding in constant time. The output holds the whole body when the padding is not valid (to be wiped).
    func open(_ reading: Reading, of input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer)
        -> (count: Int, valid: Bool) {
        let body = UnsafeRawBufferPointer(rebasing: input[reading.body])
        let out = UnsafeMutableRawBufferPointer(start: output, count: body.count + 16)
        let pool = key.pool(reading.scheme, encrypting: false)
        let n = if let iv = reading.iv {
            pool.withContext { $0.run(iv: UnsafeRawBufferPointer(rebasing: input[iv]), input: body, output: out,
                                      prefix: 0) }
        } else {
            Self.fixedIV.withUnsafeBytes { fixed in pool.withContext { $0.run(iv: fixed, input: body, output: out,
                                                                               prefix: 0) } }
        }
        guard let n else { return (body.count, false) }
        return PKCS7.unpad(UnsafeRawBufferPointer(start: output, count: n))
    }

    /// Whether `input` starts with `PNED 01 ACRH 10` and holds the whole 16-byte IV.
    static func hasACRHHeader(_ input: UnsafeRawBufferPointer) -> Bool {
        guard input.count >= acrhHeaderCount else { return false }
        return acrhHeaderStart.withUnsafeBytes { memcmpEqual($0, UnsafeRawBufferPointer(rebasing: input[0..<10])) }
    }

    /// The id the legacy cryptor has in the Swift and Go SDKs: four zero bytes. They never write it, but read a
    /// header carrying it as "legacy data follows".
    static let legacyCryptorID: [UInt8] = [0, 0, 0, 0]

    /// The scheme a header selects: `acrh` for `ACRH`; for the legacy cryptor id (only when reading with
    /// auto-detection, `explicit` nil) the scheme of what follows is the caller's legacy scheme, returned as nil.
    static func cryptor(for header: CryptorHeader, explicit: Scheme?) throws(PNCryptError) -> Scheme? {
        if header.cryptorID == legacyCryptorID && explicit == nil { return nil }
        guard header.cryptorID == CryptorHeader.aesCBCCryptorID else {
            throw PNCryptError(.unknownCryptor, "unknown cryptor id '\(header.cryptorIDDescription)' in PNED header"
                               + " at offset 5 (known: ACRH)", offset: 5)
        }
        guard header.metadata.count == 16 else {
            throw PNCryptError(.malformedHeader, "ACRH header metadata is \(header.metadata.count) bytes;"
                               + " the IV must be 16", offset: 9)
        }
        return .acrh
    }

    /// Headerless data read as acrh only: empty is a decryption error; anything else would be the legacy
    /// cryptor's data, and no legacy cryptor is there: an unknown cryptor (PubNub's contract scenarios).
    /// The first bytes of the sentinel alone are a header cut short.
    static func noHeader(_ bytes: some Collection<UInt8>) -> PNCryptError {
        if bytes.isEmpty { return PNCryptError(.malformedHeader, "empty input: no PNED header", offset: 0) }
        if bytes.count < 4 && CryptorHeader.sentinel.starts(with: bytes) {
            return PNCryptError(.malformedHeader, "no PNED header: \(bytes.count) bytes, a header cut short",
                                offset: 0)
        }
        return PNCryptError(.unknownCryptor, "no PNED header: this is legacy data (or not ciphertext), and acrh"
                            + " reads only data with a header", offset: 0)
    }

    /// Checks that a reading has ciphertext in whole blocks (the IV of `legacy-random-iv` included).
    static func checkBlocks(_ reading: Reading) throws(PNCryptError) {
        if reading.scheme == .legacyRandomIV, let iv = reading.iv, iv.count < 16 {
            throw PNCryptError(.wrongKeyOrCorrupt,
                               "\(iv.count) bytes is too short for legacy-random-iv (16-byte IV, then ciphertext)")
        }
        try checkBlocks(reading.body.count, scheme: reading.scheme, afterHeader: reading.scheme == .acrh)
    }

    static func checkBlocks(_ count: Int, scheme: Scheme, afterHeader: Bool) throws(PNCryptError) {
        guard count > 0 else {
            throw PNCryptError(.wrongKeyOrCorrupt, afterHeader ? "empty ciphertext after the PNED header"
                               : scheme == .legacyRandomIV ? "no ciphertext after the 16-byte IV" : "empty ciphertext")
        }
        guard count % 16 == 0 else {
            throw PNCryptError(.wrongKeyOrCorrupt,
                               "ciphertext is \(count) bytes, not a whole number of 16-byte AES blocks (truncated or corrupt)")
        }
    }

    /// The one error every key-dependent failure gives (bad padding, plaintext that is not UTF-8 or not JSON where
    /// text was required): which check failed is not told, so it cannot serve as a padding oracle.
    /// `Diagnosis`, run with the key, explains in detail.
    public static let decryptionFailed = PNCryptError(
        .wrongKeyOrCorrupt, "cannot decrypt: wrong key, wrong scheme, or corrupt data")
}
