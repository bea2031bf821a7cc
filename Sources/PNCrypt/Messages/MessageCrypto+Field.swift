import PNCryptBase
import PNCryptJSON
import PNCryptCore

// One field of a record (a line of an export: `{"channel":"ch","message":"<Base64>","timetoken":"..."}`) encrypted
// or decrypted (moved to a new key: MessageRekey+Field.swift), every other byte of the record kept: the field's byte
// range is found by `JSONPointer.range(in:)` and the new bytes are spliced in its place (JSONPointer+Splice.swift).

extension MessageCrypto {
    /// Encrypts one field of a record: the field's value is the message, encrypted as `encrypt(_:iv:)` (or, with
    /// `raw`, `encrypt(jsonText:iv:)`) encrypts a message, and the wire JSON (`"<Base64>"` in `style`) replaces it;
    /// every other byte of the record is kept. The pointer `""` encrypts the whole record as one message.
    /// - Parameters:
    ///   - field: where the message is (`/message`).
    ///   - record: one JSON text.
    ///   - raw: encrypt the field's bytes exactly as they are in the record instead of writing its value again in
    ///     `style`.
    ///   - iv: a fixed IV for reproducible vectors; never for real data.
    /// - Returns: the record with the field encrypted.
    /// - Throws: `invalidJSON` when the record does not parse; `invalidValue` naming the pointer when the record
    ///   has no such field; what encrypting the message throws.
    public func encrypt(field: JSONPointer, of record: some Collection<UInt8>, raw: Bool = false,
                        iv: [UInt8]? = nil) throws(PNCryptError) -> [UInt8] {
        try withBytes(record) { (bytes) throws(PNCryptError) -> [UInt8] in
            var output: [UInt8] = []
            _ = try appendEncrypted(field: field, of: bytes.assumingMemoryBound(to: UInt8.self), raw: raw, iv: iv,
                                    to: &output)
            return output
        }
    }

    /// `encrypt(field:of:raw:iv:)` appending to `output`; returns the first way writing the field's value in `style`
    /// changed it (`JSONValue.changes(in:)`), if any.
    package func appendEncrypted(field: JSONPointer, of record: UnsafeBufferPointer<UInt8>, raw: Bool,
                                 iv: [UInt8]? = nil, to output: inout [UInt8]) throws(PNCryptError) -> String? {
        let range = try field.range(in: record)
        let message = UnsafeBufferPointer(rebasing: record[range])
        var change: String?
        var wire: [UInt8]
        if raw {
            wire = try encrypt(jsonText: message, iv: iv).serialized(style: style)
        } else {
            let value = try JSONValue(parsing: message)
            change = value.changes(in: style).first
            wire = try publishBody(value, iv: iv)
        }
        field.splice(record, range, into: &output) { $0.append(contentsOf: wire) }
        wire.removeAll()
        return change
    }

    /// Decrypts one field of a record: the field must be a JSON string holding the ciphertext (as
    /// `decrypt(jsonText:policy:)` reads a message), and the decrypted message, written in `style`, replaces it;
    /// every other byte of the record is kept. A field not delivered decrypted has a status, and gets what `policy`
    /// delivers in its place: the marker, or the field as it was. The pointer `""` decrypts the whole record as one
    /// message.
    /// - Parameters:
    ///   - field: where the message is (`/message`).
    ///   - record: one JSON text.
    ///   - policy: what a field that is not delivered decrypted becomes; by default it is kept as it was
    ///     (`DecryptionPolicy.default(for: .record)`).
    /// - Throws: `invalidJSON` when the record does not parse; `invalidValue` naming the pointer when the record
    ///   has no such field. Decryption failures are not thrown.
    public func decrypt(field: JSONPointer, of record: some Collection<UInt8>,
                        policy: DecryptionPolicy = .default(for: .record)) throws(PNCryptError) -> DecryptedRecord {
        try withBytes(record) { (bytes) throws(PNCryptError) -> DecryptedRecord in
            var output: [UInt8] = []
            let status = try appendDecrypted(field: field, of: bytes.assumingMemoryBound(to: UInt8.self),
                                             policy: policy, to: &output)
            return DecryptedRecord(text: output, status: status)
        }
    }

    /// `decrypt(field:of:policy:)` appending to `output`; returns the status of a field not delivered decrypted.
    package func appendDecrypted(field: JSONPointer, of record: UnsafeBufferPointer<UInt8>, policy: DecryptionPolicy,
                                 to output: inout [UInt8]) throws(PNCryptError) -> MessageStatus? {
        let range = try field.range(in: record)
        let message = UnsafeBufferPointer(rebasing: record[range])
        var status: MessageStatus?
        try field.splice(record, range, into: &output) { (output) throws(PNCryptError) in
            // The usual field (a string literal that decrypts) straight to its text, with no value made.
            if withDecryptedText(stringLiteral: UnsafeRawBufferPointer(message), style: style, {
                output.append(contentsOf: $0)
            }) {
                return
            }
            var result: DecryptedMessage
            if !readsLeaves && message.first != UInt8(ascii: "\"") && !field.isWholeDocument {
                let original = try JSONValue(parsing: message)
                result = DecryptedMessage(message: .string(DecryptionPolicy.markerText),
                                          status: MessageStatus(error: field.notAString, original: original))
            } else {
                result = try decrypt(jsonText: message, policy: .marker)
            }
            var written: [UInt8] = []
            defer { wipe(&written) }
            if result.status == nil {
                result.message.withSerialized(style: style) { written.append(contentsOf: $0) }
                // The field is one JSON value in every style, so that the plaintext cannot rewrite the record around
                // it: a style that writes the value otherwise (php writes a string message raw between quotes)
                // fails the field, delivered as `policy` says. The whole document (`""`) has no record around it:
                // it is written as a message is without a field.
                if !style.isExact && !field.isWholeDocument && !written.withUnsafeBytes(isJSONText) {
                    result = DecryptedMessage(message: .string(DecryptionPolicy.markerText),
                                              status: MessageStatus(error: field.notJSON(in: style),
                                                                    original: try JSONValue(parsing: message)))
                }
            }
            status = result.status
            if status != nil && policy == .passThrough {
                output.append(contentsOf: message)
                return
            }
            if status == nil {
                output.append(contentsOf: written)
            } else {
                result.message.withSerialized(style: style) { output.append(contentsOf: $0) }
            }
        }
        return status
    }
}
