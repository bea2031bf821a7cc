// The header's rekey functions: wire texts moved from one module's keys to another's.
import PNCrypt
import PNCryptFiles
import PNCryptPlatform

/// `PNCRYPT_REKEY_FAILED`, `_REKEYED`, `_CURRENT`.
let rekeyFailed: Int32 = 0
let rekeyRekeyed: Int32 = 1
let rekeyCurrent: Int32 = 2

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
public func pncrypt_rekey(_ from: CModuleHandle, _ to: CModuleHandle, _ text: CText, _ len: Int, _ textOut: CTextOut,
                          _ outcome: UnsafeMutablePointer<Int32>?, _ err: CErrorOut) -> Int32 {
    outcome?.pointee = rekeyFailed
    return guarded(err, holding: from, to) {
        let out = try outputArgument(textOut, "text_out")
        var result = rekeyFailed
        let sealed = try argumentsFirst(text, len, "text") {
            let rekey = try CRekey(from: try CModule.from(from), to: try CModule.from(to))
            let item = try bytesArgument(text, len, "text")
            return try CBuffer.filled(capacity: rekey.capacity(for: item.count)) {
                let (count, what) = try rekey.rekey(item, into: $0)
                result = what
                return count
            }
        }
        out.pointee = sealed.buffer.assumingMemoryBound(to: CChar.self)
        outcome?.pointee = result
    }
}

@_cdecl("pncrypt_rekey_many")
public func pncrypt_rekey_many(_ from: CModuleHandle, _ to: CModuleHandle, _ data: CText, _ dataLen: Int,
                               _ lengths: CLengths, _ count: Int, _ out: CTextOut, _ offsets: COffsets,
                               _ outcomes: UnsafeMutablePointer<Int32>?, _ codes: CCodes,
                               _ status: CErrorOut) -> Int32 {
    return guardedDelivering(status, holding: from, to) {
        var failure: CFailure?
        let out = try outputArgument(out, "out")
        guard let offsets else { throw CFailure.argument("offsets is NULL") }
        guard let outcomes else { throw CFailure.argument("outcomes is NULL") }
        let items = try BatchItems(data, dataLen, lengths, count)
        let rekey = try CRekey(from: try CModule.from(from), to: try CModule.from(to))
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
        return failure
    }
}
