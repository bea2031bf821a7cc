import PNCryptBase

/// Several cipher keys, for key rotation: decrypts with whichever one is certainly right.
///
/// ```swift
/// let ring = try KeyRing(["new-key", "old-key"])
/// let match = try ring.decrypt(data)
/// print(match.keyIndex, match.scheme)       // 1 legacy: the old key still in use somewhere
/// ```
///
/// CBC has no integrity check: a wrong key (or a wrong reading of legacy data) passes the PKCS#7 padding check
/// about once in 256 tries and gives garbage. So every (key, scheme) reading is tried (every key; every scheme the
/// `ReadPolicy` allows: by default a `PNED` header's cryptor, or for headerless data both `legacy` and
/// `legacy-random-iv`), every check `Content` asks for runs on each, and the plaintext is returned
/// only when exactly one reading qualifies: bytes need valid padding, text also UTF-8, messages also the content check,
/// whether one reading was possible or several. None is `wrongKeyOrCorrupt`, several is `ambiguous`. Where bytes
/// allow one reading only (one key and an explicit scheme, a `PNED` header, one headerless block) a wrong key still
/// passes about once in 256 tries and its garbage is returned; text and the content check narrow that.
public struct KeyRing: Sendable {
    /// The keys, newest first.
    public let keys: [CipherKey]
    /// `keys[0]`, stored on its own: a key read from a stored constant is borrowed for a message, one read out of
    /// the array is retained and released (two atomic operations per message).
    package let first: CipherKey

    /// What a plaintext must be for a reading to qualify, whether one reading was possible or several.
    package enum Content: Sendable, Hashable {
        /// Any bytes: valid padding is all that can be checked.
        case bytes
        /// Text: valid padding and valid UTF-8.
        case text
        /// A message: valid padding, valid UTF-8, and a plaintext the caller's content check (`ContentCheck`) calls a
        /// message (the messages layer's `isMessageText`: one JSON text, or the PHP SDK's raw string form).
        case message
    }

    /// What decrypted the data.
    public struct Match: Sendable {
        /// The plaintext.
        public var plaintext: [UInt8]
        /// Index of the key in `keys` (0 is the first, newest).
        public var keyIndex: Int
        /// The scheme that read the data.
        public var scheme: Scheme
    }

    /// A ring of `keys`.
    /// - Throws: `invalidKey` when there are no keys or one is empty.
    public init(_ keys: [String]) throws(PNCryptError) {
        var derived: [CipherKey] = []
        for key in keys { derived.append(try CipherKey(key)) }
        try self.init(keys: derived)
    }

    /// A ring of already derived keys.
    /// - Throws: `invalidKey` when there are no keys, or when a key is given twice (its readings would qualify
    ///   together, so every decryption would be `ambiguous`): the error names both positions.
    public init(keys: [CipherKey]) throws(PNCryptError) {
        guard !keys.isEmpty else { throw PNCryptError(.invalidKey, "no cipher key given") }
        if let (first, again) = Self.firstDuplicate(keys) {
            throw PNCryptError(.invalidKey, "key #\(again + 1) is key #\(first + 1) again: give each key once (a key"
                               + " given twice makes every reading ambiguous)")
        }
        self.keys = keys
        first = keys[0]
    }

    /// The positions of the first key given twice in `keys` (the same bytes), nil when each is given once.
    package static func firstDuplicate(_ keys: [CipherKey]) -> (first: Int, again: Int)? {
        for again in keys.indices.dropFirst() {
            if let first = keys[..<again].firstIndex(where: { $0.isSame(as: keys[again]) }) { return (first, again) }
        }
        return nil
    }

    /// Decrypts with the one (key, scheme) reading that qualifies: a reading qualifies when its padding is valid.
    ///
    /// - Parameters:
    ///   - data: the ciphertext bytes (Base64-decoded).
    ///   - reading: how to read (`ReadPolicy`); `.rule`, the default, reads a `PNED` header when present and tries
    ///     `legacy` and `legacy-random-iv` both on headerless data (nothing in the data says which it is).
    /// - Throws: a format error (`notBase64`, `malformedHeader`, `unknownCryptor`, a length no reading accepts);
    ///   `CryptoModule.decryptionFailed` when no reading qualifies; `ambiguous`, naming the readings, when more
    ///   than one does.
    public func decrypt(_ data: some Collection<UInt8>, reading: ReadPolicy = .rule) throws(PNCryptError) -> Match {
        try decrypt(data, reading: reading, content: .bytes, check: Decision.noContentCheck)
    }

    /// `decrypt(_:reading:)` where a plaintext must also be `content` to qualify (the same rules for one reading or
    /// several); `check` says whether a plaintext is a message (the messages layer's `isMessageText`, which its
    /// `decrypt(_:reading:content:)` passes).
    package func decrypt(_ data: some Collection<UInt8>, reading: ReadPolicy = .rule,
                         content: Content, check: ContentCheck) throws(PNCryptError) -> Match {
        try withBytes(data) { (input) throws(PNCryptError) -> Match in
            try decryptToMatch(input, reading: reading, content: content, check: check)
        }
    }

    /// Chooses the key for a file before any of it is decrypted: each key is checked on the file's head and last
    /// two blocks (`StreamDecryptor.checkPadding`), and the file qualifies only when exactly one key gives valid
    /// padding, as for `decrypt(_:reading:)`.
    ///
    /// - Parameters: as `StreamDecryptor.checkPadding(key:head:tail:length:reading:)`.
    /// - Returns: the index of the key and the file format.
    /// - Throws: the format errors of `checkPadding`; `CryptoModule.decryptionFailed` when no key qualifies;
    ///   `ambiguous`, naming the keys, when more than one does.
    package func fileMatch(head: [UInt8], tail: [UInt8], length: Int, reading: ReadPolicy = .rule)
        throws(PNCryptError)
        -> (keyIndex: Int, scheme: Scheme) {
        var verdicts: [Decision.Verdict] = []
        for (keyIndex, key) in keys.enumerated() {
            let check = try StreamDecryptor.checkPadding(key: key, head: head, tail: tail, length: length,
                                                         reading: reading)
            verdicts.append(Decision.Verdict(keyIndex: keyIndex, scheme: check.scheme, padding: check.valid,
                                             utf8: false, message: false))
        }
        let winner = try Decision.decide(verdicts, content: .bytes, namingKeys: keys.count > 1)
        return (verdicts[winner].keyIndex, verdicts[winner].scheme)
    }
}

// MARK: Choosing between readings

extension KeyRing {
    /// `decrypt(_:reading:content:)` over the caller's bytes, into a new array. Not generic: a caller in another
    /// module (the C library's batches) calls it without looking generic metadata up per item.
    package func decryptToMatch(_ input: UnsafeRawBufferPointer, reading: ReadPolicy, content: Content,
                                check: ContentCheck) throws(PNCryptError) -> Match {
        var found: (keyIndex: Int, scheme: Scheme)?
        let plaintext = try makeBytes(capacity: input.count + Cryptor.blockSize) { (output) throws(PNCryptError) in
            let opened = try decrypt(input, reading: reading, content: content, into: output, check: check)
            found = (opened.keyIndex, opened.scheme)
            return opened.count
        }
        return Match(plaintext: plaintext, keyIndex: found!.keyIndex, scheme: found!.scheme)
    }

    /// As `decrypt(_:reading:content:)`, into `output` (room for `input.count + 16` bytes), returning
    /// the plaintext length instead of an array, and the winner's position among the readings tried (in the order
    /// `check` was called, for a caller that keeps what it parsed).
    package func decrypt(_ input: UnsafeRawBufferPointer, reading: ReadPolicy, content: Content,
                 into output: UnsafeMutableRawPointer, check: ContentCheck) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme, position: Int) {
        let readings = try Cryptor.readings(of: input, reading: reading)
        return try Decision.open(input, keys: keys, first: first, readings: readings, content: content, into: output,
                                 check: check)
    }
}
