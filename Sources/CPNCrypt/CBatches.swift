// The header's batch functions: many items in one call, each item's outcome in `codes`.
import PNCrypt
import PNCryptFiles
import PNCryptPlatform

/// Runs `body` on every item of a batch. Without `codes` the first failure is thrown, as "item N: ...". With
/// `codes`, each item's outcome goes to `codes[i]` (0 or its code), and the first failure is returned instead. Only
/// the first failure's message is made: a failed item after it costs its code, no text.
func eachItem(_ items: BatchItems, _ codes: CCodes,
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
public func pncrypt_encrypt_many(_ module: CModuleHandle, _ data: UnsafePointer<UInt8>?, _ dataLen: Int,
                                 _ lengths: CLengths, _ count: Int, _ base64Out: CTextOut,
                                 _ base64Len: UnsafeMutablePointer<Int>?, _ codes: CCodes,
                                 _ status: CErrorOut) -> Int32 {
    base64Len?.pointee = 0
    return guardedDelivering(status, holding: module) {
        var failure: CFailure?
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
        return failure
    }
}

@_cdecl("pncrypt_decrypt_many")
public func pncrypt_decrypt_many(_ module: CModuleHandle, _ scheme: CText, _ data: CText, _ dataLen: Int,
                                 _ lengths: CLengths, _ count: Int, _ out: CBytesOut, _ offsets: COffsets,
                                 _ codes: CCodes, _ status: CErrorOut) -> Int32 {
    decryptMany(module, scheme, data, dataLen, lengths, count, out, offsets, codes, status, content: .bytes)
}

@_cdecl("pncrypt_decrypt_many_text")
public func pncrypt_decrypt_many_text(_ module: CModuleHandle, _ scheme: CText, _ data: CText, _ dataLen: Int,
                                      _ lengths: CLengths, _ count: Int, _ out: CBytesOut, _ offsets: COffsets,
                                      _ codes: CCodes, _ status: CErrorOut) -> Int32 {
    decryptMany(module, scheme, data, dataLen, lengths, count, out, offsets, codes, status, content: .text)
}

/// pncrypt_decrypt_many and pncrypt_decrypt_many_text: what a plaintext must be to qualify is `content`.
func decryptMany(_ module: CModuleHandle, _ scheme: CText, _ data: CText, _ dataLen: Int, _ lengths: CLengths,
                 _ count: Int, _ out: CBytesOut, _ offsets: COffsets, _ codes: CCodes, _ status: CErrorOut,
                 content: KeyRing.Content) -> Int32 {
    return guardedDelivering(status, holding: module) {
        var failure: CFailure?
        let out = try outputArgument(out, "out")
        guard let offsets else { throw CFailure.argument("offsets is NULL") }
        let module = try CModule.from(module)
        let reading = try readingArgument(scheme, legacy: module.legacy)
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
                        var plaintext = try module.decrypt(text: item, reading: reading, content: content)
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
        return failure
    }
}
