// The vector checker: test code kept out of the PNCrypt library. It decodes vector files with PNCrypt's own JSON
// (`JSONValue`, `JSONValueDecoder`) and runs them through the public API only.
import PNCrypt

/// One cross-SDK test vector, as stored in `Vectors/*.json` (format in `Vectors/README.md`).
public struct TestVector: Codable, Hashable, Sendable {
    /// What a vector expects of the library.
    public enum Expectation: String, Codable, Hashable, Sendable {
        /// Decrypting gives the plaintext; with a known IV, encrypting gives the ciphertext.
        case ok
        /// Decrypting fails with a decryption error.
        case decryptionError = "decryption_error"
        /// Decrypting fails with an unknown-cryptor error.
        case unknownCryptor = "unknown_cryptor"
        /// Encrypting the plaintext fails with an encryption error.
        case encryptionError = "encryption_error"
    }

    /// Unique id across all vector files.
    public var id: String
    /// A `Scheme` raw value, or `auto` (decrypt as a module: header if present, else `legacy`; decrypt only).
    public var scheme: String
    /// The cipherKey.
    public var key: String
    /// The IV in hex, when the encryption is deterministic.
    public var iv: String?
    /// Plaintext as UTF-8 text.
    public var plaintext: String?
    /// Plaintext as Base64 of arbitrary bytes.
    public var plaintextB64: String?
    /// The scheme's output bytes in Base64.
    public var ciphertext: String?
    /// What should happen.
    public var expect: Expectation
    /// For negatives: the expected `PNCryptError.Code` name.
    public var reason: String?
    /// Where the vector came from.
    public var source: String?
    /// With `auto`: how headerless data is read (the module's legacy cryptor): `legacy` (the default),
    /// `legacy-random-iv`, `none` (a module with only the acrh cryptor), or `rule` (none named: both legacy
    /// readings, the headerless rule).
    public var legacyScheme: String?
    /// What the plaintext must be: `bytes` (the default: a module's `decryptBinary`) or `text` (valid UTF-8:
    /// `KeyRing.decrypt` with `.text`).
    public var content: String?
    /// `binary` (the default: one-shot calls) or `stream` (the stream encryptor and decryptor, in small chunks).
    public var mode: String?
    /// The contract scenario a vector comes from, when it does (informative).
    public var scenario: String?
    /// A `JSONStyle` raw value (`go`, `ruby`, `php`, `kotlin`): the plaintext is `message` written in that style, and
    /// publishing `message` as a message in that style under `scheme` gives `ciphertext` (Vectors/styles.json).
    public var style: String?
    /// With `style`: the message given to the SDK, as JSON text.
    public var message: String?

    enum CodingKeys: String, CodingKey {
        case id, scheme, key, iv, plaintext, plaintextB64 = "plaintext_b64", ciphertext, expect, reason, source
        case legacyScheme = "legacy_scheme", mode, scenario, style, message, content
    }

    /// A vector with the given fields (the others absent).
    public init(id: String, scheme: String, key: String, iv: String? = nil, plaintext: String? = nil,
                plaintextB64: String? = nil, ciphertext: String? = nil, expect: Expectation, reason: String? = nil,
                source: String? = nil, legacyScheme: String? = nil, mode: String? = nil, scenario: String? = nil,
                style: String? = nil, message: String? = nil) {
        self.id = id
        self.scheme = scheme
        self.key = key
        self.iv = iv
        self.plaintext = plaintext
        self.plaintextB64 = plaintextB64
        self.ciphertext = ciphertext
        self.expect = expect
        self.reason = reason
        self.source = source
        self.legacyScheme = legacyScheme
        self.mode = mode
        self.scenario = scenario
        self.style = style
        self.message = message
        content = nil
    }

    /// The plaintext bytes, from `plaintext` or `plaintextB64`.
    public func plaintextBytes() throws(PNCryptError) -> [UInt8]? {
        if let plaintext { return Array(plaintext.utf8) }
        if let plaintextB64 { return try Base64.decode(plaintextB64) }
        return nil
    }
}

/// A vector file: `{"description", "source", "vectors": [...]}`.
public struct TestVectorFile: Codable, Sendable {
    /// What the file holds.
    public var description: String?
    /// The default source of its vectors.
    public var source: String?
    /// The vectors.
    public var vectors: [TestVector]

    /// Reads and parses a vector file.
    /// - Throws: `io` when it cannot be read, `invalidJSON` when it is not a vector file.
    public static func load(path: String) throws(PNCryptError) -> TestVectorFile {
        guard let data = VectorFiles.contents(of: path) else {
            throw PNCryptError(.fileNotFound, "cannot read vector file '\(path)'")
        }
        do {
            return try JSONValueDecoder().decode(TestVectorFile.self, from: try JSONValue(parsing: data))
        } catch {
            throw PNCryptError(.invalidJSON, "'\(path)' is not a vector file: \(error)")
        }
    }
}

/// Runs test vectors against this library.
public enum TestVectorChecker {
    /// A failed vector and why.
    public struct Failure: Hashable, Sendable, CustomStringConvertible {
        /// The vector's id.
        public var id: String
        /// What went wrong.
        public var message: String
        /// `id: message`.
        public var description: String { "\(id): \(message)" }
    }

    /// The `.json` files a path names: the file itself, or the files in a folder, sorted.
    public static func files(at path: String) throws(PNCryptError) -> [String] {
        guard let isDirectory = VectorFiles.isDirectory(path) else {
            throw PNCryptError(.fileNotFound, "no vector file or folder at '\(path)'")
        }
        guard isDirectory else { return [path] }
        let folder = path.hasSuffix("/") ? path : path + "/"
        return VectorFiles.names(in: path).filter { $0.hasSuffix(".json") }.sorted().map { folder + $0 }
    }

    /// Checks one vector; nil when it passes.
    public static func check(_ vector: TestVector) -> Failure? {
        do {
            try run(vector)
            return nil
        } catch let failure as Failure {
            return failure
        } catch {
            return Failure(id: vector.id, message: "\(error)")
        }
    }

    private static func run(_ v: TestVector) throws {
        func fail(_ message: String) -> Failure { Failure(id: v.id, message: message) }
        let scheme: Scheme? = v.scheme == "auto" ? nil : Scheme(rawValue: v.scheme)
        guard scheme != nil || v.scheme == "auto" else { throw fail("unknown scheme '\(v.scheme)'") }
        // A module's legacy cryptor: a scheme's name (a legacy cryptor: `Scheme.isLegacyCryptor`), "none" for no
        // legacy cryptor (the header's scheme: headerless data is refused), or by default `legacy`: the vectors'
        // modules are an SDK's with a static-IV legacy cryptor (as the vector files were made); the headerless rule
        // has vectors of its own, with `legacy_scheme` "rule".
        let legacyScheme: Scheme?
        switch v.legacyScheme {
        case nil: legacyScheme = .legacy
        case "rule"?: legacyScheme = nil
        case "none"?: legacyScheme = .withHeader
        case let name?:
            guard let named = Scheme(rawValue: name), named.isLegacyCryptor else {
                throw fail("unknown legacy_scheme '\(name)'")
            }
            legacyScheme = named
        }
        let stream = v.mode == "stream"
        guard stream || v.mode == nil || v.mode == "binary" else { throw fail("unknown mode '\(v.mode ?? "")'") }
        // One policy from the two fields, by the mapping every shell uses; the module's own is the headerless part.
        let policy = ReadPolicy(scheme: scheme, legacyScheme: legacyScheme)
        let module = try CryptoModule(cipherKey: v.key, reading: ReadPolicy(scheme: nil, legacyScheme: legacyScheme))
        let plaintext = try v.plaintextBytes()
        // The stream stages, fed in 7-byte chunks (a header and an IV arrive in pieces).
        func streamed(_ stage: any ByteStreamStage, _ bytes: [UInt8]) throws -> [UInt8] {
            var out: [UInt8] = []
            try bytes.withUnsafeBytes { all in
                var offset = 0
                while offset < all.count {
                    let end = min(offset + 7, all.count)
                    let chunk = UnsafeRawBufferPointer(rebasing: all[offset..<end])
                    try stage.update(chunk) { out.append(contentsOf: $0) }
                    offset = end
                }
            }
            try stage.finish { out.append(contentsOf: $0) }
            return out
        }
        func encrypt(_ plaintext: [UInt8], _ scheme: Scheme, _ iv: [UInt8]?) throws -> [UInt8] {
            guard stream else { return try module.encryptBinary(plaintext, scheme: scheme, iv: iv) }
            return try streamed(try StreamEncryptor(key: module.key, scheme: scheme, iv: iv), plaintext)
        }
        let iv = try v.iv.map { (hex) throws(Failure) -> [UInt8] in
            guard let bytes = Hex.decode(hex) else { throw fail("iv is not hex") }
            return bytes
        }
        func decrypt() throws -> [UInt8] {
            guard let ciphertext = v.ciphertext else {
                throw PNCryptError(.invalidValue, "vector has no ciphertext")
            }
            let bytes = try Base64.decode(ciphertext)
            if stream {
                return try streamed(try StreamDecryptor(key: module.key, reading: policy), bytes)
            }
            if v.content == "text" {
                return try KeyRing(keys: [module.key]).decrypt(bytes, reading: policy, content: .text).plaintext
            }
            guard v.content == nil || v.content == "bytes" else {
                throw fail("unknown content '\(v.content ?? "")'")
            }
            return try module.decryptBinary(bytes, reading: scheme.map(ReadPolicy.only))
        }
        func expectError(_ category: PNCryptError.Category, _ body: () throws -> [UInt8]) throws {
            do {
                let out = try body()
                throw fail("expected a \(category) error, got \(out.count.counting("byte"))")
            } catch let error as PNCryptError {
                guard error.category == category else {
                    throw fail("expected a \(category) error, got \(error.category): \(error.message)")
                }
                if let reason = v.reason, reason != error.code.name {
                    throw fail("expected reason \(reason), got \(error.code.name): \(error.message)")
                }
            }
        }
        switch v.expect {
        case .ok:
            guard let plaintext else { throw fail("an ok vector needs a plaintext") }
            let decrypted = try decrypt()
            guard decrypted == plaintext else {
                throw fail("decrypted to \(Base64.encode(decrypted)), expected \(Base64.encode(plaintext))")
            }
            // Empty data cannot be encrypted (docs/formats.md section 3): an empty plaintext's vector is decrypt-only.
            guard let scheme, !plaintext.isEmpty else { return }
            if iv != nil || scheme.row.iv == .fixed {
                let encrypted = Base64.encode(try encrypt(plaintext, scheme, iv))
                guard encrypted == v.ciphertext else {
                    throw fail("encrypted to \(encrypted), expected \(v.ciphertext ?? "")")
                }
            }
            // A fresh random IV must round-trip too.
            let again = try module.decryptBinary(try encrypt(plaintext, scheme, nil), reading: .only(scheme))
            guard again == plaintext else { throw fail("random-IV round trip changed the plaintext") }
            try checkStyle(v, scheme: scheme, plaintext: plaintext, iv: iv, fail: fail)
        case .decryptionError:
            try expectError(.decryption, decrypt)
        case .unknownCryptor:
            try expectError(.unknownCryptor, decrypt)
        case .encryptionError:
            guard let scheme, let plaintext else {
                throw fail("an encryption_error vector needs a scheme and plaintext")
            }
            try expectError(.encryption) { try encrypt(plaintext, scheme, iv) }
        }
    }
}

extension TestVectorChecker {
    /// A `style` vector: the message written in the style is the plaintext, published it is the ciphertext, and
    /// the published message reads back as a message.
    private static func checkStyle(_ v: TestVector, scheme: Scheme, plaintext: [UInt8], iv: [UInt8]?,
                                   fail: (String) -> Failure) throws {
        guard let name = v.style else { return }
        guard let style = JSONStyle(rawValue: name), let text = v.message else {
            throw fail("unknown style '\(name)' or no message")
        }
        let value = try JSONValue(parsing: text)
        let written = value.serialized(style: style)
        guard written == plaintext else {
            throw fail("\(name) wrote \(String(decoding: written, as: UTF8.self))")
        }
        // Read with a second key, so that there is a choice and the plaintext must qualify as a message
        // (`isMessageText`); it gives the value the SDK wrote (PHP's raw string form: the string).
        let crypto = MessageCrypto(keys: try KeyRing([v.key, v.key + "-other"]), scheme: scheme, reading: .only(scheme),
                                   style: style)
        let published = try crypto.encrypt(value, iv: iv)
        guard published == .string(v.ciphertext ?? "") else { throw fail("published as \(published)") }
        let received = crypto.decrypt(published, policy: .marker)
        guard received.status == nil else { throw fail("the published message does not read back") }
        let expected = (try? JSONValue(parsing: plaintext)) ?? value
        guard received.message == expected else { throw fail("read back as \(received.message)") }
    }
}

extension TestVectorChecker.Failure: Error {}
