/// Several cipher keys tried in order, for key rotation: newest first.
///
/// ```swift
/// let ring = try KeyRing(["new-key", "old-key"])
/// let match = try ring.decrypt(data)
/// print(match.keyIndex, match.scheme)       // 1 legacy: the old key still in use somewhere
/// ```
///
/// A wrong key passes the PKCS#7 padding check about once in 256 tries (the last byte decrypts to 0x01), so a
/// wrong key can "succeed" with garbage. `requireUTF8` rejects such plaintext for text messages.
public struct KeyRing: Sendable {
    /// The keys, in the order they are tried.
    public let keys: [CipherKey]

    /// What decrypted the data.
    public struct Match: Sendable {
        /// The plaintext.
        public var plaintext: [UInt8]
        /// Index of the key in `keys` (0 is the first, newest).
        public var keyIndex: Int
        /// The scheme that read the data.
        public var scheme: Scheme
    }

    /// A ring of `keys`, tried in order.
    /// - Throws: `invalidKey` when there are no keys or one is empty.
    public init(_ keys: [String]) throws(PNCryptError) {
        var derived: [CipherKey] = []
        for key in keys { derived.append(try CipherKey(key)) }
        try self.init(keys: derived)
    }

    /// A ring of already derived keys.
    public init(keys: [CipherKey]) throws(PNCryptError) {
        guard !keys.isEmpty else { throw PNCryptError(.invalidKey, "no cipher key given") }
        self.keys = keys
    }

    /// Decrypts with the first key that works.
    ///
    /// - Parameters:
    ///   - scheme: the format to read; nil reads a `PNED` header when present, else `legacyScheme`.
    ///   - requireUTF8: treat plaintext that is not valid UTF-8 as a failure and try the next key.
    /// - Throws: when no key works, the error the first key gave, its message saying how many keys were tried.
    public func decrypt(_ data: some Collection<UInt8>, scheme: Scheme? = nil, legacyScheme: Scheme = .legacy,
                        requireUTF8: Bool = false) throws(PNCryptError) -> Match {
        try withBytes(data) { (input) throws(PNCryptError) -> Match in
            var failure: PNCryptError?
            var found = (count: 0, keyIndex: 0, scheme: Scheme.legacy)
            let plaintext = [UInt8](unsafeUninitializedCapacity: input.count + 16) { buffer, initialized in
                do throws(PNCryptError) {
                    found = try decrypt(input, scheme: scheme, legacyScheme: legacyScheme, requireUTF8: requireUTF8,
                                        into: UnsafeMutableRawPointer(buffer.baseAddress!))
                    initialized = found.count
                } catch {
                    failure = error
                    initialized = 0
                }
            }
            if let failure { throw failure }
            return Match(plaintext: plaintext, keyIndex: found.keyIndex, scheme: found.scheme)
        }
    }

    /// Decrypts `input` with the first key that works into `output` (room for `input.count + 16` bytes); as
    /// `decrypt(_:scheme:legacyScheme:requireUTF8:)`, returning the plaintext length instead of an array.
    func decrypt(_ input: UnsafeRawBufferPointer, scheme: Scheme?, legacyScheme: Scheme, requireUTF8: Bool,
                 into output: UnsafeMutableRawPointer) throws(PNCryptError)
        -> (count: Int, keyIndex: Int, scheme: Scheme) {
        var firstError: PNCryptError?
        for (index, key) in keys.enumerated() {
            let module = CryptoModule(key: key, legacyScheme: legacyScheme)
            do throws(PNCryptError) {
                let used = if let scheme { scheme } else { try module.detectScheme(input) }
                let count = try module.decrypt(input, scheme: used, into: output)
                if requireUTF8 && !isValidUTF8(UnsafeRawBufferPointer(start: output, count: count)) {
                    OpenSSL.cleanse(output, count: count)
                    throw PNCryptError(.invalidUTF8, "the plaintext is not valid UTF-8: wrong key or corrupt data")
                }
                return (count, index, used)
            } catch {
                if firstError == nil { firstError = error }
                // Format errors do not depend on the key: no other key can do better.
                if error.category == .unknownCryptor || error.code == .malformedHeader || error.code == .notBase64 {
                    break
                }
            }
        }
        let error = firstError!
        guard keys.count > 1 else { throw error }
        throw PNCryptError(error.code, "no key decrypts this (tried \(keys.count) keys): \(error.message)",
                           offset: error.offset)
    }
}
