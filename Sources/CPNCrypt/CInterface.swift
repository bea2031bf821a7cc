// The C entry points of include/pncrypt.h. Each one checks its arguments, calls the PNCrypt public API (the same
// calls the pncrypt CLI makes, so its formats and decryption rules hold here too), and hands results over in
// buffers from CBuffer. No Swift error and no nil pointer the caller can pass escapes as a crash.
import PNCrypt
import PNCryptFiles
import PNCryptPlatform

/// What a `pncrypt_module *` points to (retained by `pncrypt_module_new`, released by `pncrypt_module_free`).
/// Its one mutable part, the key ring, is behind a lock: `pncrypt_module_add_key` replaces it, every other call reads
/// it, so one module serves any number of threads (the header still asks for keys to be added before sharing).
final class CModule: Sendable {
    /// The key the module encrypts with (its derived AES keys are wiped when the last reference goes).
    let key: CipherKey
    /// The scheme the module encrypts with.
    let scheme: Scheme
    /// Bytes <-> Base64 in `scheme`.
    let crypto: CryptoModule
    /// The ring and the messages read with it, replaced together by `add` under the lock.
    private let keys: Locked<(ring: KeyRing, messages: MessageCrypto)>
    /// Every key of the module, `key` first: decryption goes through the ring (the library's one procedure).
    var ring: KeyRing { keys.withLock { $0.ring } }
    /// Messages in `scheme`, read with every key and, headerless, both legacy readings (see `legacy`).
    var messages: MessageCrypto { keys.withLock { $0.messages } }
    /// How `auto` reads data without a PNED header: nil tries legacy and legacy-random-iv both (exactly one
    /// reading must qualify); a legacy33 module reads it as legacy33, its own format.
    let legacy: Scheme?
    /// The legacy file format of headerless files: fixed IV for a legacy module (what its encrypt_file writes), the
    /// random-IV format for a legacy-random-iv module, else nil: the headerless rule for files.
    let fileLegacy: Scheme?

    init(key: CipherKey, scheme: Scheme) throws(PNCryptError) {
        self.key = key
        self.scheme = scheme
        crypto = CryptoModule(key: key, scheme: scheme)
        let ring = try KeyRing(keys: [key])
        legacy = scheme.headerlessMessageReading
        fileLegacy = scheme.headerlessFileFormat
        keys = Locked((ring, MessageCrypto(keys: ring, scheme: scheme)))
    }

    /// Adds a key tried on decryption (never used to encrypt).
    func add(_ extra: CipherKey) throws {
        try keys.withLock { keys in
            Result { () throws -> Void in
                guard !keys.ring.keys.contains(where: { $0.isSame(as: extra) }) else {
                    throw CFailure.argument("the key is already in the module (a key given twice makes every"
                                            + " reading ambiguous)")
                }
                let ring = try KeyRing(keys: keys.ring.keys + [extra])
                keys = (ring, MessageCrypto(keys: ring, scheme: scheme))
            }
        }.get()
    }

    /// A reference to the module a C caller passes, taken for the length of one call (nil for NULL): a
    /// `pncrypt_module_free` while the call runs releases the caller's reference only, and the module (its keys
    /// wiped) goes when the last call holding it returns. Every entry point that takes a module holds it
    /// (`guarded(_:holding:_:_:)`): one atomic increment and decrement per call.
    static func hold(_ pointer: OpaquePointer?) -> Unmanaged<CModule>? {
        guard let pointer else { return nil }
        return Unmanaged<CModule>.fromOpaque(UnsafeRawPointer(pointer)).retain()
    }

    static func from(_ pointer: OpaquePointer?) throws -> CModule {
        try unmanaged(pointer).takeUnretainedValue()
    }

    /// Runs `body` with the module, without retaining it again: the entry point's hold (`guarded(_:holding:_:_:)`)
    /// keeps it alive for the call.
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
        let key = try keyArgument(cipherKey, "cipher_key")
        let scheme = try schemeArgument(scheme, default: .defaultForWriting, allowAuto: false) ?? .defaultForWriting
        let module = try CModule(key: key, scheme: scheme)
        out.pointee = OpaquePointer(Unmanaged.passRetained(module).toOpaque())
    }
}

@_cdecl("pncrypt_module_add_key")
public func pncrypt_module_add_key(_ module: OpaquePointer?, _ cipherKey: UnsafePointer<CChar>?,
                                   _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err, holding: module) {
        let module = try CModule.from(module)
        try module.add(try keyArgument(cipherKey, "key"))
    }
}

/// Releases the caller's reference: a call running on the module holds its own (`CModule.hold`), so the module
/// and its keys go when the last of them returns.
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
    guarded(err, holding: module) {
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
    decryptOne(module, scheme, base64, len, out, outLen, err, content: .bytes)
}

@_cdecl("pncrypt_decrypt_text")
public func pncrypt_decrypt_text(_ module: OpaquePointer?, _ scheme: UnsafePointer<CChar>?,
                                 _ base64: UnsafePointer<CChar>?, _ len: Int,
                                 _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                 _ outLen: UnsafeMutablePointer<Int>?, _ err: UnsafeMutableRawPointer?) -> Int32 {
    decryptOne(module, scheme, base64, len, out, outLen, err, content: .text)
}

/// pncrypt_decrypt and pncrypt_decrypt_text: what a plaintext must be to qualify is `content`.
private func decryptOne(_ module: OpaquePointer?, _ scheme: UnsafePointer<CChar>?,
                        _ base64: UnsafePointer<CChar>?, _ len: Int,
                        _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                        _ outLen: UnsafeMutablePointer<Int>?, _ err: UnsafeMutableRawPointer?,
                        content: KeyRing.Content) -> Int32 {
    outLen?.pointee = 0
    return guarded(err, holding: module) {
        let out = try outputArgument(out, "out")
        guard let outLen else { throw CFailure.argument("out_len is NULL") }
        let module = try CModule.from(module)
        let scheme = try schemeArgument(scheme, default: nil, allowAuto: true)
        var plaintext = try module.decrypt(text: try textArgument(base64, len, "base64"), scheme: scheme,
                                           content: content)
        defer { wipe(&plaintext) }
        out.pointee = try CBuffer.copy(plaintext).assumingMemoryBound(to: UInt8.self)
        outLen.pointee = plaintext.count
    }
}

extension CModule {
    /// Base64, then the library's one decision procedure (`KeyRing.decrypt`) over every key of the module and, for
    /// `auto` (nil), every reading of the data: a PNED header, else both legacy readings (legacy33 for a legacy33
    /// module). The plaintext comes back only when exactly one reading qualifies as `content`. The caller wipes it.
    /// As text, the one key-dependent failure also says that a binary plaintext is read as bytes (the same words
    /// for every such failure, so it tells nothing about which check failed).
    func decrypt(text: UnsafeRawBufferPointer, scheme: Scheme?, content: KeyRing.Content) throws(PNCryptError)
        -> [UInt8] {
        let ciphertext = try Base64.decode(text.assumingMemoryBound(to: UInt8.self))
        do {
            return try ring.decrypt(ciphertext, reading: ReadPolicy(scheme: scheme, legacyScheme: legacy),
                                    content: content).plaintext
        } catch where content == .text && error == CryptoModule.decryptionFailed {
            throw PNCryptError(error.code, error.message + CFailure.binaryPlaintextHint, offset: error.offset)
        }
    }
}

// MARK: Batches

/// Runs `body` on every item of a batch. Without `codes` the first failure is thrown, as "item N: ...". With
/// `codes`, each item's outcome goes to `codes[i]` (0 or its code), and the first failure is returned instead. Only
/// the first failure's message is made: a failed item after it costs its code, no text.
private func eachItem(_ items: BatchItems, _ codes: UnsafeMutablePointer<Int32>?,
                      _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws -> CFailure? {
    var first: CFailure?
    try items.forEach { index, item in
        do {
            try body(index, item)
            codes?[index] = 0
        } catch {
            guard let codes else { throw CFailure.from(error).item(index) }
            if first == nil {
                let failure = CFailure.from(error).item(index)
                codes[index] = failure.code
                first = failure
            } else {
                codes[index] = CFailure.code(of: error)
            }
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
    let code = guarded(status, holding: module) {
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
    decryptMany(module, scheme, data, dataLen, lengths, count, out, offsets, codes, status, content: .bytes)
}

@_cdecl("pncrypt_decrypt_many_text")
public func pncrypt_decrypt_many_text(_ module: OpaquePointer?, _ scheme: UnsafePointer<CChar>?,
                                      _ data: UnsafePointer<CChar>?, _ dataLen: Int, _ lengths: UnsafePointer<Int>?,
                                      _ count: Int, _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                      _ offsets: UnsafeMutablePointer<Int>?, _ codes: UnsafeMutablePointer<Int32>?,
                                      _ status: UnsafeMutableRawPointer?) -> Int32 {
    decryptMany(module, scheme, data, dataLen, lengths, count, out, offsets, codes, status, content: .text)
}

/// pncrypt_decrypt_many and pncrypt_decrypt_many_text: what a plaintext must be to qualify is `content`.
private func decryptMany(_ module: OpaquePointer?, _ scheme: UnsafePointer<CChar>?,
                         _ data: UnsafePointer<CChar>?, _ dataLen: Int, _ lengths: UnsafePointer<Int>?,
                         _ count: Int, _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                         _ offsets: UnsafeMutablePointer<Int>?, _ codes: UnsafeMutablePointer<Int32>?,
                         _ status: UnsafeMutableRawPointer?, content: KeyRing.Content) -> Int32 {
    var failure: CFailure?
    let code = guarded(status, holding: module) {
        let out = try outputArgument(out, "out")
        guard let offsets else { throw CFailure.argument("offsets is NULL") }
        let module = try CModule.from(module)
        let scheme = try schemeArgument(scheme, default: nil, allowAuto: true)
        let items = try BatchItems(data, dataLen, lengths, count)
        // A plaintext is never longer than its Base64 text: the item lengths bound the whole. The loop is eachItem's,
        // without an untyped throw per failed item: a failure costs its code (typed, no boxing, no dynamic cast)
        // and, for the first one only, its message.
        let joined = try CBuffer.filled(capacity: dataLen) { buffer in
            var end = 0
            try items.forEach { index, item in
                offsets[index] = end
                var code: Int32 = 0
                var reason: PNCryptError?
                if let base = item.baseAddress, memchr(base, 0, item.count) != nil {
                    code = ErrorCodes.argument
                } else {
                    do throws(PNCryptError) {
                        var plaintext = try module.decrypt(text: item, scheme: scheme, content: content)
                        plaintext.withUnsafeBytes {
                            if let source = $0.baseAddress {
                                (buffer + end).copyMemory(from: source, byteCount: $0.count)
                            }
                        }
                        end += plaintext.count
                        wipe(&plaintext)
                    } catch {
                        code = ErrorCodes.code(for: error)
                        reason = error
                    }
                }
                if code == 0 {
                    codes?[index] = 0
                    return
                }
                if let codes, failure != nil {
                    codes[index] = code
                    return
                }
                let made = reason.map { CFailure($0) }
                    ?? CFailure.argument("the text has a NUL byte inside its length: the length does not match"
                                         + " the text")
                guard let codes else { throw made.item(index) }
                codes[index] = code
                failure = made.item(index)
            }
            return end
        }
        offsets[count] = joined.count
        out.pointee = joined.buffer.assumingMemoryBound(to: UInt8.self)
    }
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}

// MARK: Rekey

/// `PNCRYPT_REKEY_FAILED`, `_REKEYED`, `_CURRENT`.
private let rekeyFailed: Int32 = 0
private let rekeyRekeyed: Int32 = 1
private let rekeyCurrent: Int32 = 2

/// Moves wire texts from one module's keys to another's key and scheme with `MessageRekey` (the library's rules:
/// the plaintext must qualify as a message, exactly one reading; the target's own reading means already current).
struct CRekey {
    let rekey: MessageRekey
    /// The target module, for the size of what it writes.
    let to: CModule

    init(from: CModule, to: CModule) throws {
        rekey = try MessageRekey(from: from.ring, to: to.key, scheme: to.scheme)
        self.to = to
    }

    /// The most bytes the rekeyed form of an item of `count` bytes can take (its plaintext is shorter than its
    /// Base64 text; 2 for the quotes).
    func capacity(for count: Int) -> Int { max(count, to.crypto.base64Count(sealing: count) + 2) }

    /// Rekeys one item (Base64 text, with or without JSON quotes, surrounding white space allowed). Writes the new
    /// text (in the item's form: quoted when it was) to `output` and returns its length and the outcome; an item
    /// already current is copied unchanged. Throws the reason an item cannot be rekeyed.
    func rekey(_ item: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) throws -> (Int, Int32) {
        let text = try textArgument(item.baseAddress, item.count, "the text")
        var start = 0
        var end = text.count
        while start < end && isSpace(text[start]) { start += 1 }
        while end > start && isSpace(text[end - 1]) { end -= 1 }
        let quoted = end - start >= 2 && text[start] == 0x22 && text[end - 1] == 0x22
        let outcome: MessageRekey.Outcome
        if quoted {
            outcome = rekey.rekey(jsonText: UnsafeRawBufferPointer(rebasing: text[start..<end]))
        } else {
            // Base64 needs no JSON escape: anything that would (a quote, a backslash, a control byte) is not Base64.
            for i in start..<end where text[i] == 0x22 || text[i] == 0x5C || text[i] < 0x20 {
                throw PNCryptError(.notBase64, "the text is not Base64 (byte \(i + 1))")
            }
            // An empty (or all white space) item is the JSON text "": nothing to copy, and an empty buffer has no
            // address (a force-unwrap here aborted the caller on an empty item, issue 46).
            var json = [UInt8](repeating: 0x22, count: end - start + 2)
            if end > start, let source = text.baseAddress {
                json.withUnsafeMutableBytes { target in
                    if let base = target.baseAddress {
                        (base + 1).copyMemory(from: source + start, byteCount: end - start)
                    }
                }
            }
            outcome = rekey.rekey(jsonText: json)
        }
        switch outcome {
        case .rekeyed(let sealed):
            let body = quoted ? sealed[...] : sealed.dropFirst().dropLast()
            body.withUnsafeBytes { if let base = $0.baseAddress { output.copyMemory(from: base, byteCount: $0.count) } }
            return (body.count, rekeyRekeyed)
        case .alreadyNew:
            if let base = text.baseAddress { output.copyMemory(from: base, byteCount: text.count) }
            return (text.count, rekeyCurrent)
        case .unchanged(let error):
            throw error
        }
    }

}

@_cdecl("pncrypt_rekey")
public func pncrypt_rekey(_ from: OpaquePointer?, _ to: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ len: Int,
                          _ textOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                          _ outcome: UnsafeMutablePointer<Int32>?, _ err: UnsafeMutableRawPointer?) -> Int32 {
    outcome?.pointee = rekeyFailed
    return guarded(err, holding: from, to) {
        let out = try outputArgument(textOut, "text_out")
        let rekey = try CRekey(from: try CModule.from(from), to: try CModule.from(to))
        let item = try bytesArgument(text, len, "text")
        var result = rekeyFailed
        let sealed = try CBuffer.filled(capacity: rekey.capacity(for: item.count)) {
            let (count, what) = try rekey.rekey(item, into: $0)
            result = what
            return count
        }
        out.pointee = sealed.buffer.assumingMemoryBound(to: CChar.self)
        outcome?.pointee = result
    }
}

@_cdecl("pncrypt_rekey_many")
public func pncrypt_rekey_many(_ from: OpaquePointer?, _ to: OpaquePointer?, _ data: UnsafePointer<CChar>?,
                               _ dataLen: Int, _ lengths: UnsafePointer<Int>?, _ count: Int,
                               _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                               _ offsets: UnsafeMutablePointer<Int>?, _ outcomes: UnsafeMutablePointer<Int32>?,
                               _ codes: UnsafeMutablePointer<Int32>?, _ status: UnsafeMutableRawPointer?) -> Int32 {
    var failure: CFailure?
    let code = guarded(status, holding: from, to) {
        let out = try outputArgument(out, "out")
        guard let offsets else { throw CFailure.argument("offsets is NULL") }
        guard let outcomes else { throw CFailure.argument("outcomes is NULL") }
        let rekey = try CRekey(from: try CModule.from(from), to: try CModule.from(to))
        let items = try BatchItems(data, dataLen, lengths, count)
        var capacity = 0
        for length in items.lengths {
            let (sum, overflow) = capacity.addingReportingOverflow(rekey.capacity(for: length))
            guard !overflow else { throw CFailure(ErrorCodes.noMemory, "out of memory") }
            capacity = sum
        }
        // Every item is tried (a failed one is copied unchanged); `codes`, when given, says why each failed.
        let localCodes = codes ?? UnsafeMutablePointer<Int32>.allocate(capacity: max(count, 1))
        defer { if codes == nil { localCodes.deallocate() } }
        let joined = try CBuffer.filled(capacity: capacity) { buffer in
            var end = 0
            failure = try eachItem(items, localCodes) { index, item in
                offsets[index] = end
                outcomes[index] = rekeyFailed
                do {
                    let (written, what) = try rekey.rekey(item, into: buffer + end)
                    end += written
                    outcomes[index] = what
                } catch {
                    if let base = item.baseAddress { (buffer + end).copyMemory(from: base, byteCount: item.count) }
                    end += item.count
                    throw error
                }
            }
            return end
        }
        offsets[count] = joined.count
        out.pointee = joined.buffer.assumingMemoryBound(to: CChar.self)
    }
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}

// MARK: Files

@_cdecl("pncrypt_encrypt_file")
public func pncrypt_encrypt_file(_ module: OpaquePointer?, _ inPath: UnsafePointer<CChar>?,
                                 _ outPath: UnsafePointer<CChar>?, _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err, holding: module) {
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
    guarded(err, holding: module) {
        let module = try CModule.from(module)
        let scheme = try schemeArgument(scheme, default: nil, allowAuto: true)
        let input = try stringArgument(inPath, "in_path")
        let output = try stringArgument(outPath, "out_path")
        // As `pncrypt decrypt --binary [--scheme <scheme>]`, by the same routine (`FileDecryption.choose`: the key
        // chosen on the file's head and last blocks before anything is decrypted, exactly one key must qualify).
        // Headerless files are read in the module's legacy file format (`CModule.fileLegacy`).
        let source = try FileTransform.source(input)
        let decryptor: StreamDecryptor
        do {
            decryptor = try FileDecryption.choose(source, ring: module.ring,
                                                  reading: ReadPolicy(scheme: scheme, legacyScheme: module.fileLegacy))
                .decryptor
        } catch let error as FileError {
            throw CFailure(error)
        }
        try FileTransform.run(source, output: output, stages: [decryptor])
    }
}

// MARK: Messages

@_cdecl("pncrypt_message_encrypt")
public func pncrypt_message_encrypt(_ module: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ len: Int,
                                    _ jsonOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                    _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err, holding: module) {
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
    guarded(err, holding: module) {
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
    messageDecrypt(module, json, len, policy, jsonOut, statusJSONOut: nil, withStatus: false, status)
}

@_cdecl("pncrypt_message_decrypt_status")
public func pncrypt_message_decrypt_status(_ module: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ len: Int,
                                           _ policy: Int32,
                                           _ jsonOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                           _ statusJSONOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                           _ status: UnsafeMutableRawPointer?) -> Int32 {
    messageDecrypt(module, json, len, policy, jsonOut, statusJSONOut: statusJSONOut, withStatus: true, status)
}

/// `pncrypt_message_decrypt`, and `withStatus` its `_status` form: `statusJSONOut` (required) receives the status's
/// JSON (`MessageStatus.json`, the one status form) for a message delivered with a failure, else NULL.
private func messageDecrypt(_ module: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ len: Int, _ policy: Int32,
                            _ jsonOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                            statusJSONOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, withStatus: Bool,
                            _ status: UnsafeMutableRawPointer?) -> Int32 {
    var failure: CFailure?
    // Every output is NULL first, whichever argument is refused (the header's convention).
    statusJSONOut?.pointee = nil
    let code = guarded(status, holding: module) {
        let out = try outputArgument(jsonOut, "json_out")
        let statusOut = withStatus ? try outputArgument(statusJSONOut, "status_json_out") : nil
        guard policy == policyMarker || policy == policyPassThrough || policy == policyFail else {
            throw CFailure.argument("unknown policy \(policy) (PNCRYPT_ON_ERROR_MARKER, _PASSTHROUGH or _FAIL)")
        }
        // The usual message (a string literal that decrypts) straight to its compact text, with no value made;
        // anything else the full way below, which gives the same text.
        var made: UnsafeMutableRawPointer?
        let fast = try withJSONArgument(json, len, "json") { input in
            try CModule.with(module) {
                $0.messages.withDecryptedText(stringLiteral: UnsafeRawBufferPointer(input), style: .compact) {
                    made = CBuffer.make($0)
                }
            }
        }
        if fast {
            guard let made else { throw CFailure(ErrorCodes.noMemory, "out of memory") }
            out.pointee = made.assumingMemoryBound(to: CChar.self)
            return
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
        if let statusOut, let status = decrypted.status {
            // The original message is in the status: wiped on free, as the delivered message is.
            try fillSecond(after: out) {
                statusOut.pointee = try CBuffer.copy(serializing: status.json, secret: true)
                    .assumingMemoryBound(to: CChar.self)
            }
        }
    }
    // Delivered with a decryption failure: the call succeeded, the status says why the message is not plaintext.
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}

// MARK: Envelopes

@_cdecl("pncrypt_envelope_decrypt")
public func pncrypt_envelope_decrypt(_ module: OpaquePointer?, _ format: UnsafePointer<CChar>?,
                                     _ json: UnsafePointer<CChar>?, _ len: Int, _ policy: Int32,
                                     _ jsonOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                     _ statusesOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                     _ status: UnsafeMutableRawPointer?) -> Int32 {
    var failure: CFailure?
    // Every output is NULL first, whichever argument is refused (the header's convention).
    statusesOut?.pointee = nil
    let code = guarded(status, holding: module) {
        let out = try outputArgument(jsonOut, "json_out")
        guard policy == policyMarker || policy == policyPassThrough || policy == policyFail else {
            throw CFailure.argument("unknown policy \(policy) (PNCRYPT_ON_ERROR_MARKER, _PASSTHROUGH or _FAIL)")
        }
        let formats = try envelopeFormats(format)
        // FAIL reads as the marker policy does (a non-string is a failure), then returns the first failure.
        var result = try withJSONArgument(json, len, "json") { input in
            try CModule.with(module) {
                try $0.messages.decrypt(envelopeText: input, formats: formats,
                                        policy: policy == policyPassThrough ? .passThrough : .marker)
            }
        }
        defer { wipe(&result.text) }
        if let first = result.statuses.first {
            let located = CFailure(first.error).located(first)
            if policy == policyFail { throw located }
            failure = located
        }
        result.text.append(0)
        out.pointee = try CBuffer.copy(result.text).assumingMemoryBound(to: CChar.self)
        if let statusesOut, !result.statuses.isEmpty {
            var lines: [UInt8] = []
            for status in result.statuses { lines += status.json.serialized() + [0x0A] }
            try fillSecond(after: out) {
                statusesOut.pointee = try CBuffer.copy(lines + [0]).assumingMemoryBound(to: CChar.self)
            }
        }
    }
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}

/// Runs `body`, which fills a second output after `first` was filled; when it throws, `first` is freed and set to
/// NULL (a failed call returns no buffer).
private func fillSecond(after first: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
                        _ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        CBuffer.free(first.pointee.map { UnsafeMutableRawPointer($0) })
        first.pointee = nil
        throw error
    }
}

/// The formats a `format` argument names: NULL any, "history" v2 or v3, else one format by name.
private func envelopeFormats(_ format: UnsafePointer<CChar>?) throws -> [EnvelopeFormat] {
    guard let format else { return EnvelopeFormat.allCases }
    let name = try stringArgument(format, "format")
    if name == "history" { return EnvelopeFormat.history }
    guard let one = EnvelopeFormat(rawValue: name) else {
        throw CFailure.argument("unknown format '\(name)' (NULL, \"history\", \"v2\", \"v3\" or \"subscribe\")")
    }
    return [one]
}

extension CFailure {
    /// The failure of one message of a response, its message starting with where the message is.
    func located(_ status: MessageStatus) -> CFailure {
        var place = "message \(status.index ?? 0)"
        if let channel = status.channel { place += " of channel \(JSONValue.string(channel))" }
        return CFailure(code, "\(place): \(message)")
    }
}

// MARK: Memory

@_cdecl("pncrypt_free")
public func pncrypt_free(_ buffer: UnsafeMutableRawPointer?) {
    CBuffer.free(buffer)
}
