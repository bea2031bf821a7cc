// The C entry points of include/pncrypt.h. Each one checks its arguments, calls the PNCrypt public API (the same
// calls the pncrypt CLI makes, so its formats and decryption rules hold here too), and hands results over in
// buffers from CBuffer. No Swift error and no nil pointer the caller can pass escapes as a crash.
import PNCrypt
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a `pncrypt_module *` points to (retained by `pncrypt_module_new`, released by `pncrypt_module_free`).
/// Immutable, so one module serves any number of threads.
final class CModule: Sendable {
    /// The key (its derived AES keys are wiped when the last reference goes).
    let key: CipherKey
    /// The scheme the module encrypts with.
    let scheme: Scheme
    /// Bytes <-> Base64 in `scheme`.
    let crypto: CryptoModule
    /// The key as a ring of one, for decryption with the CLI's rules (`pncrypt decrypt` goes through KeyRing).
    let ring: KeyRing
    /// Messages in `scheme`; headerless messages read as legacy-random-iv for such a module, legacy otherwise.
    let messages: MessageCrypto
    /// How `auto` reads headerless data: the module's legacy cryptor, as in an SDK's CryptoModule.
    let legacy: Scheme

    init(key: CipherKey, scheme: Scheme) throws(PNCryptError) {
        self.key = key
        self.scheme = scheme
        crypto = CryptoModule(key: key, encryptionScheme: scheme)
        ring = try KeyRing(keys: [key])
        legacy = scheme == .legacyRandomIV ? .legacyRandomIV : .legacy
        messages = MessageCrypto(keys: ring, scheme: scheme, legacyScheme: legacy)
    }

    static func from(_ pointer: OpaquePointer?) throws -> CModule {
        try unmanaged(pointer).takeUnretainedValue()
    }

    /// Runs `body` with the module, without retaining it: the caller's reference keeps it alive for the call (the
    /// header says a module must not be freed while a call uses it). Saves an atomic retain and release per call.
    static func with<R>(_ pointer: OpaquePointer?, _ body: (CModule) throws -> R) throws -> R {
        try unmanaged(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// The module a C caller passes, refused when NULL.
    private static func unmanaged(_ pointer: OpaquePointer?) throws -> Unmanaged<CModule> {
        guard let pointer else { throw CFailure.argument("the module is NULL") }
        return Unmanaged<CModule>.fromOpaque(UnsafeRawPointer(pointer))
    }
}

/// `PNCryptVersion.string` as a C string: made once, never freed (the caller gets static storage).
nonisolated(unsafe) private let versionText = UnsafePointer<CChar>(strdup(PNCryptVersion.string)!)

@_cdecl("pncrypt_version")
public func pncrypt_version() -> UnsafePointer<CChar> { versionText }

@_cdecl("pncrypt_version_number")
public func pncrypt_version_number() -> UInt32 {
    UInt32(PNCryptVersion.major * 10000 + PNCryptVersion.minor * 100 + PNCryptVersion.patch)
}

// MARK: Modules

@_cdecl("pncrypt_module_new")
public func pncrypt_module_new(_ cipherKey: UnsafePointer<CChar>?, _ scheme: UnsafePointer<CChar>?,
                               _ out: UnsafeMutablePointer<OpaquePointer?>?,
                               _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err) {
        let out = try outputArgument(out, "out")
        let key = try stringArgument(cipherKey, "cipher_key")
        let scheme = try schemeArgument(scheme, default: .acrh, allowAuto: false) ?? .acrh
        let module = try CModule(key: try CipherKey(key), scheme: scheme)
        out.pointee = OpaquePointer(Unmanaged.passRetained(module).toOpaque())
    }
}

@_cdecl("pncrypt_module_free")
public func pncrypt_module_free(_ module: OpaquePointer?) {
    guard let module else { return }
    Unmanaged<CModule>.fromOpaque(UnsafeRawPointer(module)).release()
}

// MARK: Bytes <-> Base64

@_cdecl("pncrypt_encrypt")
public func pncrypt_encrypt(_ module: OpaquePointer?, _ data: UnsafePointer<UInt8>?, _ len: Int,
                            _ base64Out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                            _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err) {
        let out = try outputArgument(base64Out, "base64_out")
        let module = try CModule.from(module)
        let input = try bytesArgument(data, len, "data")
        // Encrypted straight into the buffer returned, sized exactly (as each item of pncrypt_encrypt_many).
        let sealed = try CBuffer.filled(capacity: module.crypto.base64Count(sealing: input.count)) {
            try module.crypto.encryptBase64(input, into: $0)
        }
        out.pointee = sealed.buffer.assumingMemoryBound(to: CChar.self)
    }
}

@_cdecl("pncrypt_decrypt")
public func pncrypt_decrypt(_ module: OpaquePointer?, _ scheme: UnsafePointer<CChar>?,
                            _ base64: UnsafePointer<CChar>?, _ len: Int,
                            _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                            _ outLen: UnsafeMutablePointer<Int>?, _ err: UnsafeMutableRawPointer?) -> Int32 {
    outLen?.pointee = 0
    return guarded(err) {
        let out = try outputArgument(out, "out")
        guard let outLen else { throw CFailure.argument("out_len is NULL") }
        let module = try CModule.from(module)
        let scheme = try schemeArgument(scheme, default: nil, allowAuto: true)
        var plaintext = try module.decrypt(text: try textArgument(base64, len, "base64"), scheme: scheme)
        defer { wipe(&plaintext) }
        out.pointee = try CBuffer.copy(plaintext).assumingMemoryBound(to: UInt8.self)
        outLen.pointee = plaintext.count
    }
}

extension CModule {
    /// As `pncrypt decrypt` (text mode): Base64, then the key ring's rules. The caller wipes the plaintext.
    func decrypt(text: UnsafeRawBufferPointer, scheme: Scheme?) throws -> [UInt8] {
        let ciphertext = try Base64.decode(text.assumingMemoryBound(to: UInt8.self))
        return try ring.decrypt(ciphertext, scheme: scheme, legacyScheme: legacy, content: .text).plaintext
    }
}

// MARK: Batches

/// Runs `body` on every item of a batch. Without `codes` the first failure is thrown, as "item N: ...". With
/// `codes`, each item's outcome goes to `codes[i]` (0 or its code), and the first failure is returned instead.
private func eachItem(_ items: BatchItems, _ codes: UnsafeMutablePointer<Int32>?,
                      _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws -> CFailure? {
    var first: CFailure?
    try items.forEach { index, item in
        do {
            try body(index, item)
            codes?[index] = 0
        } catch {
            let failure = CFailure.from(error).item(index)
            guard let codes else { throw failure }
            codes[index] = failure.code
            if first == nil { first = failure }
        }
    }
    return first
}

@_cdecl("pncrypt_encrypt_many")
public func pncrypt_encrypt_many(_ module: OpaquePointer?, _ data: UnsafePointer<UInt8>?, _ dataLen: Int,
                                 _ lengths: UnsafePointer<Int>?, _ count: Int,
                                 _ base64Out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                 _ base64Len: UnsafeMutablePointer<Int>?, _ codes: UnsafeMutablePointer<Int32>?,
                                 _ status: UnsafeMutableRawPointer?) -> Int32 {
    base64Len?.pointee = 0
    var failure: CFailure?
    let code = guarded(status) {
        let out = try outputArgument(base64Out, "base64_out")
        guard let base64Len else { throw CFailure.argument("base64_len is NULL") }
        let module = try CModule.from(module)
        let items = try BatchItems(data, dataLen, lengths, count)
        // Every item's Base64 text and the newlines between them, exactly: one buffer, each item encrypted
        // straight into it. An item that fails (with `codes`) leaves an empty line, and there are still `count`.
        var capacity = max(count - 1, 0)
        for length in items.lengths {
            let (sum, overflow) = capacity.addingReportingOverflow(module.crypto.base64Count(sealing: length))
            guard !overflow else { throw CFailure(ErrorCodes.noMemory, "out of memory") }
            capacity = sum
        }
        let joined = try CBuffer.filled(capacity: capacity) { buffer in
            var end = 0
            failure = try eachItem(items, codes) { index, item in
                if index > 0 {
                    (buffer + end).storeBytes(of: 0x0A, as: UInt8.self)
                    end += 1
                }
                end += try module.crypto.encryptBase64(item, into: buffer + end)
            }
            return end
        }
        out.pointee = joined.buffer.assumingMemoryBound(to: CChar.self)
        base64Len.pointee = joined.count
    }
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}

@_cdecl("pncrypt_decrypt_many")
public func pncrypt_decrypt_many(_ module: OpaquePointer?, _ scheme: UnsafePointer<CChar>?,
                                 _ data: UnsafePointer<CChar>?, _ dataLen: Int, _ lengths: UnsafePointer<Int>?,
                                 _ count: Int, _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                 _ offsets: UnsafeMutablePointer<Int>?, _ codes: UnsafeMutablePointer<Int32>?,
                                 _ status: UnsafeMutableRawPointer?) -> Int32 {
    var failure: CFailure?
    let code = guarded(status) {
        let out = try outputArgument(out, "out")
        guard let offsets else { throw CFailure.argument("offsets is NULL") }
        let module = try CModule.from(module)
        let scheme = try schemeArgument(scheme, default: nil, allowAuto: true)
        let items = try BatchItems(data, dataLen, lengths, count)
        // A plaintext is never longer than its Base64 text: the item lengths bound the whole.
        let joined = try CBuffer.filled(capacity: dataLen) { buffer in
            var end = 0
            failure = try eachItem(items, codes) { index, item in
                offsets[index] = end
                let text = try textArgument(item.baseAddress, item.count, "the text")
                var plaintext = try module.decrypt(text: text, scheme: scheme)
                defer { wipe(&plaintext) }
                plaintext.withUnsafeBytes {
                    if let source = $0.baseAddress { (buffer + end).copyMemory(from: source, byteCount: $0.count) }
                }
                end += plaintext.count
            }
            return end
        }
        offsets[count] = joined.count
        out.pointee = joined.buffer.assumingMemoryBound(to: UInt8.self)
    }
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}

// MARK: Files

@_cdecl("pncrypt_encrypt_file")
public func pncrypt_encrypt_file(_ module: OpaquePointer?, _ inPath: UnsafePointer<CChar>?,
                                 _ outPath: UnsafePointer<CChar>?, _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err) {
        let module = try CModule.from(module)
        let input = try stringArgument(inPath, "in_path")
        let output = try stringArgument(outPath, "out_path")
        // As `pncrypt encrypt --binary --scheme <scheme>`.
        let encryptor = try StreamEncryptor(key: module.key, scheme: module.scheme)
        try FileTransform.run(input: input, output: output, stages: [encryptor])
    }
}

@_cdecl("pncrypt_decrypt_file")
public func pncrypt_decrypt_file(_ module: OpaquePointer?, _ inPath: UnsafePointer<CChar>?,
                                 _ outPath: UnsafePointer<CChar>?, _ err: UnsafeMutableRawPointer?) -> Int32 {
    pncrypt_decrypt_file_scheme(module, nil, inPath, outPath, err)
}

@_cdecl("pncrypt_decrypt_file_scheme")
public func pncrypt_decrypt_file_scheme(_ module: OpaquePointer?, _ scheme: UnsafePointer<CChar>?,
                                        _ inPath: UnsafePointer<CChar>?, _ outPath: UnsafePointer<CChar>?,
                                        _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err) {
        let module = try CModule.from(module)
        let scheme = try schemeArgument(scheme, default: nil, allowAuto: true)
        let input = try stringArgument(inPath, "in_path")
        let output = try stringArgument(outPath, "out_path")
        // As `pncrypt decrypt --binary [--scheme <scheme>]` with one key. Headerless files are read in the module's
        // legacy file format: the fixed IV for a legacy module (what its encrypt_file writes), else the random-IV
        // format (what SDK file sharing writes).
        let legacy: Scheme = module.scheme == .legacy ? .legacy : .legacyRandomIV
        let decryptor = try StreamDecryptor(key: module.key, scheme: scheme, legacyScheme: legacy)
        try FileTransform.run(input: input, output: output, stages: [decryptor])
    }
}

// MARK: Messages

@_cdecl("pncrypt_message_encrypt")
public func pncrypt_message_encrypt(_ module: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ len: Int,
                                    _ jsonOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                    _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err) {
        let out = try outputArgument(jsonOut, "json_out")
        let sealed = try withJSONArgument(json, len, "json") { input in
            try CModule.with(module) { try $0.messages.encrypt(jsonText: input) }
        }
        out.pointee = try CBuffer.copy(serializing: sealed, secret: false).assumingMemoryBound(to: CChar.self)
    }
}

@_cdecl("pncrypt_message_encrypt_style")
public func pncrypt_message_encrypt_style(_ module: OpaquePointer?, _ style: UnsafePointer<CChar>?,
                                          _ json: UnsafePointer<CChar>?, _ len: Int,
                                          _ jsonOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                          _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err) {
        let out = try outputArgument(jsonOut, "json_out")
        // As `pncrypt message encrypt --style`: the message is parsed and written again in the style.
        let name = try stringArgument(style, "style")
        guard let style = JSONStyle(rawValue: name) else {
            let names = JSONStyle.allCases.map(\.rawValue).joined(separator: ", ")
            throw CFailure.argument("unknown style '\(name.prefix(40))' (known: \(names))")
        }
        let sealed = try withJSONArgument(json, len, "json") { input in
            try CModule.with(module) { module in
                var crypto = module.messages
                crypto.style = style
                return try crypto.encrypt(try JSONValue(parsing: input))
            }
        }
        out.pointee = try CBuffer.copy(serializing: sealed, secret: false).assumingMemoryBound(to: CChar.self)
    }
}

/// `PNCRYPT_ON_ERROR_MARKER`, `_PASSTHROUGH`, `_FAIL`.
private let policyMarker: Int32 = 0
private let policyPassThrough: Int32 = 1
private let policyFail: Int32 = 2

@_cdecl("pncrypt_message_decrypt")
public func pncrypt_message_decrypt(_ module: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ len: Int,
                                    _ policy: Int32,
                                    _ jsonOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                    _ status: UnsafeMutableRawPointer?) -> Int32 {
    var failure: CFailure?
    let code = guarded(status) {
        let out = try outputArgument(jsonOut, "json_out")
        guard policy == policyMarker || policy == policyPassThrough || policy == policyFail else {
            throw CFailure.argument("unknown policy \(policy) (PNCRYPT_ON_ERROR_MARKER, _PASSTHROUGH or _FAIL)")
        }
        // FAIL reads as the marker policy does (a non-string is a failure), then returns the failure.
        let decrypted = try withJSONArgument(json, len, "json") { input in
            try CModule.with(module) {
                try $0.messages.decrypt(jsonText: input, policy: policy == policyPassThrough ? .passThrough : .marker)
            }
        }
        if let status = decrypted.status {
            if policy == policyFail { throw CFailure(status.error) }
            failure = CFailure(status.error)
        }
        out.pointee = try CBuffer.copy(serializing: decrypted.message, secret: true).assumingMemoryBound(to: CChar.self)
    }
    // Delivered with a decryption failure: the call succeeded, the status says why the message is not plaintext.
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}

// MARK: Memory

@_cdecl("pncrypt_free")
public func pncrypt_free(_ buffer: UnsafeMutableRawPointer?) {
    CBuffer.free(buffer)
}
