// The vector checker: test code kept out of the PNCrypt library. It runs the vectors (TestVector.swift) through
// the public API only.

import PNCrypt
import PNCryptFiles
import SystemPackage

/// Runs test vectors against this library.
package enum TestVectorChecker {
    /// A failed vector and why.
    package struct Failure: Hashable, Sendable, CustomStringConvertible {
        /// The vector's id.
        package var id: String
        /// What went wrong.
        package var message: String
        /// `id: message`.
        package var description: String { "\(id): \(message)" }
    }

    /// The `.json` files a path names: the file itself, or the files in a folder, sorted.
    package static func files(at path: FilePath) throws(PNCryptError) -> [FilePath] {
        guard let isDirectory = VectorFiles.isDirectory(path) else {
            throw PNCryptError(.fileNotFound, "no vector file or folder at '\(path.shown)'")
        }
        guard isDirectory else { return [path] }
        return VectorFiles.names(in: path).filter { $0.extension == "json" }
            .sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.map { path.appending($0) }
    }

    /// Checks one vector; nil when it passes.
    package static func check(_ vector: TestVector) -> Failure? {
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
        // A list of readings (`auto,legacy33`) is read by the library's one parser of lists; it only decrypts.
        let list = v.scheme.contains(",")
        let scheme: Scheme? = v.scheme == "auto" || list ? nil : Scheme(rawValue: v.scheme)
        guard scheme != nil || v.scheme == "auto" || list else { throw fail("unknown scheme '\(v.scheme)'") }
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
        let policy = list ? try ReadPolicy(naming: v.scheme, legacyScheme: legacyScheme)
            : ReadPolicy(scheme: scheme, legacyScheme: legacyScheme)
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
            return try module.decryptBinary(bytes, reading: list ? policy : scheme.map(ReadPolicy.only))
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
