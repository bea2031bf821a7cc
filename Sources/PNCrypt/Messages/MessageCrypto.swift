import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// Encrypts messages for publishing and decrypts received ones (docs/formats.md section 4).
///
/// Publish: message → JSON text (in `style`) → UTF-8 → encrypt → Base64 → sent as a JSON string literal.
/// So the message `"Hello World"` (a JSON string) is encrypted as its 13 bytes with the quotes, and under `legacy`
/// with the key `enigma` goes on the wire as `"06UDjczkvAAYcqWfNwkOiQ=="`.
///
/// Receive: only JSON strings are decrypted (surrounding quotes inside the string are tolerated); a reading
/// qualifies only when its padding is valid and its plaintext is UTF-8 and one JSON text (the one decision
/// procedure, as `KeyRing` with `.json`), and exactly one must. A plaintext that is not JSON (bytes a client
/// encrypted without JSON) is a decryption failure here; `KeyRing` with `.text` reads it. Failures follow a
/// `DecryptionPolicy`.
///
/// `legacy33` (iOS 3.3) is different: every string leaf is encrypted on its own as raw UTF-8, object keys stay in
/// plaintext, and decrypted leaves are not parsed as JSON (docs/formats.md section 4.1).
public struct MessageCrypto: Sendable {
    /// The keys tried when decrypting (newest first); the first one encrypts.
    public let keys: KeyRing
    /// The scheme messages are encrypted with.
    public var scheme: Scheme
    /// How received messages are read (`ReadPolicy`): `.rule` (the default) reads a `PNED` header when present and
    /// tries both legacy readings on headerless data, taking a message only when exactly one reading gives JSON
    /// text (see `KeyRing`); `.headerlessAs(.legacy)` or `.headerlessAs(.legacyRandomIV)` as a client's legacy
    /// cryptor is set; `.only` reads one scheme (`.only(.legacy33)` reads iOS 3.3's string leaves).
    public var reading: ReadPolicy
    /// How messages are written as JSON before encryption (their bytes differ between SDKs).
    public var style: JSONStyle
    /// What a received message's plaintext must be (`.json`, the default; `.text` also delivers a UTF-8
    /// plaintext that is not JSON, as a JSON string). Every reading is checked by the same rule.
    public var plaintext: PlaintextRule = .json

    /// Message encryption with one key.
    public init(cipherKey: String, scheme: Scheme = .defaultForWriting, reading: ReadPolicy = .rule,
                style: JSONStyle = .compact) throws(PNCryptError) {
        try self.init(keys: KeyRing([cipherKey]), scheme: scheme, reading: reading, style: style)
    }

    /// Message encryption with a key ring: the first key encrypts, all are tried in order to decrypt.
    public init(keys: KeyRing, scheme: Scheme = .defaultForWriting, reading: ReadPolicy = .rule,
                style: JSONStyle = .compact) {
        self.keys = keys
        self.scheme = scheme
        self.reading = reading
        self.style = style
    }

    /// The scheme whose messages are string leaves (`Scheme.MessageForm.stringLeaves`: `legacy33`) that this
    /// value writes or reads; nil when its messages are whole.
    var leafScheme: Scheme? {
        if reading.list != nil { return nil }
        if scheme.row.message == .stringLeaves { return scheme }
        if let only = reading.scheme, only.row.message == .stringLeaves { return only }
        return nil
    }

    /// The string-leaves scheme of a list of readings (`--scheme auto,legacy33`), else nil: an array or object
    /// message is read as its string leaves, a string message by every reading of the list at once.
    var listLeafScheme: Scheme? { reading.list?.leafScheme }

    /// Whether messages may be read as string leaves (`leafScheme`, `listLeafScheme`): the fast paths, which read
    /// whole messages only, step aside.
    var readsLeaves: Bool { leafScheme != nil || listLeafScheme != nil }

    // MARK: Publish

    /// The message to publish: a JSON string holding the Base64 ciphertext (for `legacy33`, the message's shape
    /// with every string leaf encrypted).
    /// - Parameters:
    ///   - message: the message, written as JSON text in `style` before it is encrypted.
    ///   - iv: a fixed IV for reproducible vectors; never for real data.
    /// - Throws: `notEncryptable` for a `legacy33` message with a non-string leaf, naming its path.
    public func encrypt(_ message: JSONValue, iv: [UInt8]? = nil) throws(PNCryptError) -> JSONValue {
        if scheme.row.message == .stringLeaves {
            return try Legacy33Message.encrypt(message, key: keys.first, scheme: scheme)
        }
        // Text written from a JSONValue always parses: no need to check it as `encrypt(jsonText:)` does.
        let sealed = try message.withSerialized(style: style) { (text) throws(PNCryptError) in
            try ReadingCipher.sealToBase64(text, with: keys.first, scheme: scheme, iv: iv, quoted: false)
        }
        return .string(String(decoding: sealed, as: UTF8.self))
    }

    /// Encrypts JSON text exactly as given (it must parse), for callers that already hold the bytes to send.
    /// - Throws: `invalidJSON` with the offset when the text does not parse.
    public func encrypt(jsonText: some Collection<UInt8>, iv: [UInt8]? = nil) throws(PNCryptError) -> JSONValue {
        // No copy of the caller's text (a non-contiguous one is copied by `withBytes`, which wipes the copy).
        try withBytes(jsonText) { (text) throws(PNCryptError) -> JSONValue in
            let value = try JSONValue(parsing: text.assumingMemoryBound(to: UInt8.self))
            if scheme.row.message == .stringLeaves {
                return try Legacy33Message.encrypt(value, key: keys.first, scheme: scheme)
            }
            let sealed = try ReadingCipher.sealToBase64(text, with: keys.first, scheme: scheme, iv: iv, quoted: false)
            return .string(String(decoding: sealed, as: UTF8.self))
        }
    }

    /// Encrypts any `Encodable` value as a message (through `JSONValueEncoder`).
    public func encrypt(_ value: some Encodable, iv: [UInt8]? = nil) throws -> JSONValue {
        try encrypt(try JSONValueEncoder().encode(value), iv: iv)
    }

    /// The wire bytes of an encrypted message: `"<Base64>"` written in `style`.
    package func publishBody(_ message: JSONValue, iv: [UInt8]? = nil) throws(PNCryptError) -> [UInt8] {
        // Base64 needs no JSON escapes except `/` in the apple style (`\/`): write the quoted text directly.
        guard scheme.row.message == .whole, style != .apple else {
            return try encrypt(message, iv: iv).serialized(style: style)
        }
        // The closure captures only what it uses, and the key unretained: capturing `self` copied the key ring
        // into it, and capturing the key retained it (each a retain and a release per message). `self` holds the
        // key for the whole call.
        let key = Unmanaged.passUnretained(keys.first)
        let scheme = scheme
        return try message.withSerialized(style: style) { (text) throws(PNCryptError) in
            try key.withBorrowed { key throws(PNCryptError) in
                try ReadingCipher.sealToBase64(text, with: key, scheme: scheme, iv: iv, quoted: true)
            }
        }
    }

    // MARK: Receive

    /// Decrypts a received message. Never throws: a message that is not delivered decrypted always has a `status`
    /// saying why (a message that is not a JSON string, never encrypted, is `notEncrypted`, under every policy),
    /// and the message delivered follows `policy`.
    public func decrypt(_ message: JSONValue, policy: DecryptionPolicy) -> DecryptedMessage {
        do throws(PNCryptError) {
            if let leafScheme {
                return DecryptedMessage(message: try Legacy33Message.decrypt(message, keys: keys, scheme: leafScheme),
                                        scheme: leafScheme)
            }
            // A message that is not a JSON string was never encrypted: it is not decrypted, so it has a status
            // (`notEncrypted`) under every policy; `passThrough` delivers it as it was, as any failure.
            if let leaves = listLeafScheme, message.stringValue == nil {
                return DecryptedMessage(message: try Legacy33Message.decrypt(message, keys: keys, scheme: leaves),
                                        scheme: leaves)
            }
            guard case .string(let text) = message else {
                throw PNCryptError(.notEncrypted, "the message is not a JSON string, so it cannot be ciphertext")
            }
            let opened = try Self.withUTF8(text) { (base64) throws(PNCryptError) in try open(base64: base64) }
            return DecryptedMessage(message: opened.value, keyIndex: opened.keyIndex, scheme: opened.scheme)
        } catch {
            // An ambiguous reading is reported as the one public failure: which readings qualified depends on the
            // plaintext, and a status reflected to a sender must not tell anything about it.
            let status = MessageStatus(error: error.code == .ambiguous ? CryptoModule.decryptionFailed : error,
                                       original: message)
            let delivered: JSONValue = policy == .marker ? .string(DecryptionPolicy.markerText) : message
            return DecryptedMessage(message: delivered, status: status)
        }
    }

    /// Parses a received message's JSON text and decrypts it.
    /// - Throws: `invalidJSON` (with the offset) when the text does not parse; decryption failures are not thrown.
    @inlinable
    public func decrypt(jsonText: some Collection<UInt8>, policy: DecryptionPolicy) throws(PNCryptError)
        -> DecryptedMessage {
        // Inlinable, so the caller's collection type is known here: for contiguous text (`[UInt8]`, a `String`'s
        // UTF-8) no generic hop through `withContiguousStorageIfAvailable`, no copy, no `Result`. Anything else
        // takes the full path, which gives the same result.
        if let fast = jsonText.withContiguousStorageIfAvailable({ decryptStringLiteral(UnsafeRawBufferPointer($0)) }),
           let fast {
            return fast
        }
        return decrypt(try JSONValue(parsing: jsonText), policy: policy)
    }

    /// The Base64 of `text` when it is bare Base64 (a wire message without its JSON quotes: Base64 characters that
    /// decode to at least 16 bytes, one AES block, the shortest ciphertext; white space around it ignored), else
    /// nil: what the one-message `message decrypt` and line mode (decrypt and rekey) take as the JSON string it would
    /// be, after the text did not parse as JSON. A bare word (`hello`, `nope`) stays text that is not JSON, with its
    /// hint.
    package static func bareBase64(_ text: some Collection<UInt8>) -> String? {
        let trimmed = text.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard trimmed.count >= 24, trimmed.allSatisfy(Base64.isCharacter) else { return nil }
        let base64 = String(decoding: trimmed, as: UTF8.self)
        guard let bytes = try? Base64.decode(base64), bytes.count >= 16 else { return nil }
        return base64
    }

    /// The fast path of `decrypt(jsonText:policy:)` (`openStringLiteral`), as the message delivered; nil when the
    /// text is not a plain string literal or decryption fails.
    @usableFromInline
    func decryptStringLiteral(_ text: UnsafeRawBufferPointer) -> DecryptedMessage? {
        guard let opened = openStringLiteral(text) else { return nil }
        return DecryptedMessage(message: opened.value, keyIndex: opened.keyIndex, scheme: opened.scheme)
    }
}
