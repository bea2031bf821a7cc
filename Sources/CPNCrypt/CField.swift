// The C entry points for one field of a JSON record (`pncrypt_field_...`, include/pncrypt.h "Records"): the
// library's field-wise calls (`MessageCrypto.encrypt(field:of:raw:iv:)`, `decrypt(field:of:policy:)`,
// `MessageRekey.rekey(field:of:)`), as `pncrypt message ... --field` makes them.
import PNCrypt
import PNCryptPlatform

/// The `pointer` argument: a JSON Pointer (RFC 6901); an invalid one is `PNCRYPT_E_ARGUMENT` saying what a pointer
/// looks like.
func pointerArgument(_ pointer: UnsafePointer<CChar>?) throws -> JSONPointer {
    let text = try stringArgument(pointer, "pointer")
    do {
        return try JSONPointer(text)
    } catch {
        throw CFailure.argument("pointer: " + error.message)
    }
}

/// The `style` argument: NULL (the field's bytes encrypted exactly as given) or a style's name.
private func fieldStyleArgument(_ pointer: UnsafePointer<CChar>?) throws -> JSONStyle? {
    guard let pointer else { return nil }
    let name = try stringArgument(pointer, "style")
    guard let style = JSONStyle(rawValue: name) else {
        let names = JSONStyle.allCases.map(\.rawValue).joined(separator: ", ")
        throw CFailure.argument("unknown style '\(name.prefix(40))' (known: \(names))")
    }
    return style
}

/// The `policy` argument of the field decryptions.
func fieldPolicyArgument(_ policy: Int32, allowFail: Bool) throws -> DecryptionPolicy {
    switch policy {
    case policyMarker: return .marker
    case policyPassThrough: return .passThrough
    case policyFail where allowFail: return .marker
    case policyDefault: return .default(for: .record)
    default:
        throw CFailure.argument("unknown policy \(policy) (PNCRYPT_ON_ERROR_MARKER, _PASSTHROUGH, _DEFAULT"
                                + (allowFail ? " or _FAIL)" : "; a batch tries every item)"))
    }
}

/// The module's message crypto, writing in `style` when one is given.
private func fieldCrypto(_ module: CModule, style: JSONStyle?) -> MessageCrypto {
    var crypto = module.messages
    if let style { crypto.style = style }
    return crypto
}

/// A batch of records through `body` (each record's new bytes, or a throw with what a failed item leaves in the
/// output): every item is tried; `codes` (may be NULL) receives each item's code; returns the joined output and the
/// first failure ("item N: ").
private func fieldBatch(_ items: BatchItems, _ codes: UnsafeMutablePointer<Int32>?,
                        _ body: FieldItemWork) throws
    -> (output: [UInt8], offsets: [Int], failure: CFailure?) {
    var output: [UInt8] = []
    var offsets: [Int] = []
    var first: CFailure?
    items.forEach { index, item in
        offsets.append(output.count)
        do throws(FieldItemFailure) {
            output.append(contentsOf: try body(index, item.assumingMemoryBound(to: UInt8.self)))
            codes?[index] = 0
        } catch {
            output.append(contentsOf: error.left)
            let failure = CFailure.from(error.error)
            codes?[index] = failure.code
            if first == nil { first = failure.item(index) }
        }
    }
    offsets.append(output.count)
    return (output, offsets, first)
}

/// A failed item of a batch: why, and what it leaves in the output.
struct FieldItemFailure: Error {
    var error: any Error
    var left: [UInt8]
}

/// Hands a batch's output over: the joined bytes in `out`, `offsets` filled (count + 1 entries).
private func deliverBatch(_ result: (output: [UInt8], offsets: [Int], failure: CFailure?),
                          _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
                          _ offsets: UnsafeMutablePointer<Int>) throws {
    for (index, offset) in result.offsets.enumerated() { offsets[index] = offset }
    out.pointee = try CBuffer.copy(result.output).assumingMemoryBound(to: CChar.self)
}

/// A field batch (`pncrypt_field_*_many`): `out`, `offsets` and the output named `missing` (NULL when it is
/// required) checked, the pointer read, then `prepare` reads the call's own arguments and gives each record's work;
/// every item is tried (`fieldBatch`) and the output handed over.
func fieldBatchCall(_ status: CErrorOut, holding module: CModuleHandle, _ other: CModuleHandle = nil,
                            field pointer: CText, items data: CText, _ dataLen: Int, _ lengths: CLengths,
                            _ count: Int, _ out: CTextOut, _ offsets: COffsets, _ codes: CCodes,
                            missing: String? = nil, _ prepare: (JSONPointer) throws -> FieldItemWork) -> Int32 {
    guardedDelivering(status, holding: module, other) {
        let out = try outputArgument(out, "out")
        guard let offsets else { throw CFailure.argument("offsets is NULL") }
        if let missing { throw CFailure.argument("\(missing) is NULL") }
        let field = try pointerArgument(pointer)
        let items = try BatchItems(data, dataLen, lengths, count)
        let result = try fieldBatch(items, codes, try prepare(field))
        try deliverBatch(result, out, offsets)
        return result.failure
    }
}

/// One record's work in a field batch: its index and bytes in, its new bytes out, or a throw with what it leaves.
typealias FieldItemWork = (Int, UnsafeBufferPointer<UInt8>) throws(FieldItemFailure) -> [UInt8]

@_cdecl("pncrypt_field_encrypt")
public func pncrypt_field_encrypt(_ module: CModuleHandle, _ pointer: CText, _ style: CText, _ json: CText, _ len: Int,
                                  _ jsonOut: CTextOut, _ err: CErrorOut) -> Int32 {
    guarded(err, holding: module) {
        let out = try outputArgument(jsonOut, "json_out")
        let field = try pointerArgument(pointer)
        let style = try fieldStyleArgument(style)
        let record = try withJSONArgument(json, len, "json") { input in
            try CModule.with(module) { try fieldCrypto($0, style: style).encrypt(field: field, of: input,
                                                                                  raw: style == nil) }
        }
        out.pointee = try CBuffer.copy(record).assumingMemoryBound(to: CChar.self)
    }
}

@_cdecl("pncrypt_field_decrypt")
public func pncrypt_field_decrypt(_ module: CModuleHandle, _ pointer: CText, _ json: CText, _ len: Int, _ policy: Int32,
                                  _ jsonOut: CTextOut, _ statusJSONOut: CTextOut, _ status: CErrorOut) -> Int32 {
    fieldDecryptCall(status, holding: module, pointer, json, len, policy, jsonOut, statusJSONOut) { field, input, how in
        try CModule.with(module) { try $0.messages.decrypt(field: field, of: input, policy: how) }
    }
}

/// One field decryption (`pncrypt_field_decrypt`, `pncrypt_field_decrypt_channels`): the output and pointer
/// arguments checked, then `decrypt` gives the record (the pointer, the record, the policy), which is handed over
/// with its status: a field not decrypted is the call's failure with `_FAIL`, else reported as it is delivered.
func fieldDecryptCall(_ status: CErrorOut, holding module: CModuleHandle, _ pointer: CText, _ json: CText,
                      _ len: Int, _ policy: Int32, _ jsonOut: CTextOut, _ statusJSONOut: CTextOut,
                      _ decrypt: (JSONPointer, UnsafeBufferPointer<UInt8>, DecryptionPolicy) throws
                          -> DecryptedRecord) -> Int32 {
    statusJSONOut?.pointee = nil
    return guardedDelivering(status, holding: module) {
        var failure: CFailure?
        let out = try outputArgument(jsonOut, "json_out")
        let field = try pointerArgument(pointer)
        let reading = try fieldPolicyArgument(policy, allowFail: true)
        let record = try withJSONArgument(json, len, "json") { input in try decrypt(field, input, reading) }
        if let recordStatus = record.status {
            if policy == policyFail { throw CFailure(recordStatus.error) }
            // Delivered with a decryption failure: the call succeeds, the status says why the field is not plaintext.
            failure = CFailure(recordStatus.error)
        }
        let text = try CBuffer.copy(record.text)
        if let statusJSONOut, let recordStatus = record.status {
            do {
                statusJSONOut.pointee = try CBuffer.copy(serializing: recordStatus.json, secret: true)
                    .assumingMemoryBound(to: CChar.self)
            } catch {
                CBuffer.free(text)
                throw error
            }
        }
        out.pointee = text.assumingMemoryBound(to: CChar.self)
        return failure
    }
}

@_cdecl("pncrypt_field_rekey")
public func pncrypt_field_rekey(_ from: CModuleHandle, _ to: CModuleHandle, _ pointer: CText, _ json: CText, _ len: Int,
                                _ jsonOut: CTextOut, _ outcome: UnsafeMutablePointer<Int32>?,
                                _ err: CErrorOut) -> Int32 {
    fieldRekeyCall(err, holding: from, to, pointer, json, len, jsonOut, outcome) {
        let rekey = try CRekey(from: try CModule.from(from), to: try CModule.from(to)).rekey
        return { field, record in rekey.rekey(field: field, of: record) }
    }
}

/// One field moved (`pncrypt_field_rekey`, `pncrypt_field_rekey_channels`): the output and pointer arguments
/// checked, `make` (run with the text argument checked first) gives what moves a record, and the new record, a copy
/// of a current one, or the reason it cannot be moved is handed over.
func fieldRekeyCall(_ err: CErrorOut, holding from: CModuleHandle, _ to: CModuleHandle, _ pointer: CText,
                    _ json: CText, _ len: Int, _ jsonOut: CTextOut, _ outcome: UnsafeMutablePointer<Int32>?,
                    _ make: () throws -> (JSONPointer, UnsafeBufferPointer<UInt8>) -> MessageRekey.Outcome) -> Int32 {
    outcome?.pointee = rekeyFailed
    return guarded(err, holding: from, to) {
        let out = try outputArgument(jsonOut, "json_out")
        let field = try pointerArgument(pointer)
        let rekey = try argumentsFirst(json, len, "json") { try make() }
        let record = try bytesArgument(json, len, "json").assumingMemoryBound(to: UInt8.self)
        switch rekey(field, record) {
        case .rekeyed(let text):
            out.pointee = try CBuffer.copy(text).assumingMemoryBound(to: CChar.self)
            outcome?.pointee = rekeyRekeyed
        case .alreadyNew:
            out.pointee = try CBuffer.copy(Array(record)).assumingMemoryBound(to: CChar.self)
            outcome?.pointee = rekeyCurrent
        case .unchanged(let error):
            if error.code == .invalidJSON { _ = try textArgument(json, len, "json") }
            throw error
        }
    }
}

@_cdecl("pncrypt_field_encrypt_many")
public func pncrypt_field_encrypt_many(_ module: CModuleHandle, _ pointer: CText, _ style: CText, _ data: CText,
                                       _ dataLen: Int, _ lengths: CLengths, _ count: Int, _ out: CTextOut,
                                       _ offsets: COffsets, _ codes: CCodes, _ status: CErrorOut) -> Int32 {
    fieldBatchCall(status, holding: module, field: pointer, items: data, dataLen, lengths, count, out, offsets,
                   codes) { field in
        let style = try fieldStyleArgument(style)
        let crypto = fieldCrypto(try CModule.from(module), style: style)
        // A failed item is empty: nothing of a plaintext is copied.
        return { (_, record) throws(FieldItemFailure) in
            do throws(PNCryptError) {
                return try crypto.encrypt(field: field, of: record, raw: style == nil)
            } catch {
                throw FieldItemFailure(error: error, left: [])
            }
        }
    }
}

@_cdecl("pncrypt_field_decrypt_many")
public func pncrypt_field_decrypt_many(_ module: CModuleHandle, _ pointer: CText, _ data: CText, _ dataLen: Int,
                                       _ lengths: CLengths, _ count: Int, _ policy: Int32, _ out: CTextOut,
                                       _ offsets: COffsets, _ codes: CCodes, _ status: CErrorOut) -> Int32 {
    fieldBatchCall(status, holding: module, field: pointer, items: data, dataLen, lengths, count, out, offsets,
                   codes) { field in
        let reading = try fieldPolicyArgument(policy, allowFail: false)
        let crypto = try CModule.from(module).messages
        return decryptItems { (record) throws(PNCryptError) in
            try crypto.decrypt(field: field, of: record, policy: reading)
        }
    }
}

/// A field decryption batch's work, `decrypt` giving each record: a record without the field is copied as it was;
/// a field that does not decrypt gets what the policy says.
func decryptItems(_ decrypt: @escaping (UnsafeBufferPointer<UInt8>) throws(PNCryptError) -> DecryptedRecord)
    -> FieldItemWork {
    { (_, record) throws(FieldItemFailure) in
        let decrypted: DecryptedRecord
        do throws(PNCryptError) {
            decrypted = try decrypt(record)
        } catch {
            throw FieldItemFailure(error: error, left: Array(record))
        }
        if let recordStatus = decrypted.status {
            throw FieldItemFailure(error: recordStatus.error, left: decrypted.text)
        }
        return decrypted.text
    }
}

@_cdecl("pncrypt_field_rekey_many")
public func pncrypt_field_rekey_many(_ from: CModuleHandle, _ to: CModuleHandle, _ pointer: CText, _ data: CText,
                                     _ dataLen: Int, _ lengths: CLengths, _ count: Int, _ out: CTextOut,
                                     _ offsets: COffsets, _ outcomes: UnsafeMutablePointer<Int32>?, _ codes: CCodes,
                                     _ status: CErrorOut) -> Int32 {
    fieldBatchCall(status, holding: from, to, field: pointer, items: data, dataLen, lengths, count, out, offsets,
                   codes, missing: outcomes == nil ? "outcomes" : nil) { field in
        let rekey = try CRekey(from: try CModule.from(from), to: try CModule.from(to)).rekey
        return rekeyItems(outcomes!) { record in rekey.rekey(field: field, of: record) }  // not NULL: `missing`
    }
}

/// A field rekey batch's work, `rekey` moving each record, its outcome in `outcomes`: a record that cannot be
/// moved is copied unchanged.
func rekeyItems(_ outcomes: UnsafeMutablePointer<Int32>,
                _ rekey: @escaping (UnsafeBufferPointer<UInt8>) -> MessageRekey.Outcome) -> FieldItemWork {
    { (index, record) throws(FieldItemFailure) in
        outcomes[index] = rekeyFailed
        switch rekey(record) {
        case .rekeyed(let text):
            outcomes[index] = rekeyRekeyed
            return text
        case .alreadyNew:
            outcomes[index] = rekeyCurrent
            return Array(record)
        case .unchanged(let error):
            throw FieldItemFailure(error: error, left: Array(record))
        }
    }
}
