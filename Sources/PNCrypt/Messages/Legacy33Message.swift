import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// iOS 3.3 message encryption (docs/formats.md section 4.1): no JSON serialization before encrypting; each string leaf
/// is
/// encrypted on its own as raw UTF-8 with `legacy33`; object keys stay in plaintext; arrays and objects keep their
/// shape. Decrypted leaves are not parsed as JSON.
///
/// `["seven",{"food":"Cheeseburger"}]` with key `enigma` becomes
/// `["0ZRaiDryY0rdklgVVU80pQ==",{"food":"zu9G3gtmiAxYLpehtuQngw=="}]`.
enum Legacy33Message {
    /// Encrypts every string leaf of `message`.
    /// - Throws: `notEncryptable` naming the path (for example `$[2].price`) of the first leaf that is not a string:
    ///   iOS 3.3 dropped such leaves and 3.4's compatibility mode produced invalid results. `notEncryptable` for a
    ///   message without string leaves (`{}`, `[[]]`): nothing in it would be encrypted, and a receiver reads such
    ///   a message as not encrypted.
    /// `scheme` is the table's string-leaves scheme (`legacy33`).
    static func encrypt(_ message: JSONValue, key: CipherKey, scheme: Scheme) throws(PNCryptError) -> JSONValue {
        var leaves = 0
        let encrypted = try map(message, path: "$", nonString: .notEncryptable) { (text, _) throws(PNCryptError) in
            leaves += 1
            var plaintext = Array(text.utf8)
            defer { wipe(&plaintext) }
            // iOS 3.3 encrypted an empty string leaf as one block of padding.
            let sealed = try withBytes(plaintext) { (bytes) throws(PNCryptError) in
                try ReadingCipher.sealToBase64(bytes, with: key, scheme: scheme, iv: nil, quoted: false,
                                              allowEmpty: true)
            }
            return .string(String(decoding: sealed, as: UTF8.self))
        }
        guard leaves > 0 else { throw noLeaf(.notEncryptable, "would be encrypted") }
        return encrypted
    }

    /// Decrypts every string leaf of `message`: the first leaf with every key of `keys`, the others with the one
    /// key that alone read the first. Each leaf qualifies as text (valid padding and UTF-8) through the one
    /// decision procedure (`Decision`): a leaf is raw UTF-8, not JSON. A message decrypts only when at least one
    /// leaf decrypted and every one did: a message with no string leaf (`{}`, `[]`, `{"cmd":{"rm -rf":[]}}`)
    /// involved no key and no ciphertext, so it is not encrypted, as a non-string message is in auto mode.
    /// - Throws: the leaf's decryption error, its message naming the path; `notEncrypted` for non-string leaves and
    ///   for a message without string leaves.
    /// `scheme` is the table's string-leaves scheme (`legacy33`).
    static func decrypt(_ message: JSONValue, keys: KeyRing, scheme: Scheme) throws(PNCryptError) -> JSONValue {
        var chosen: KeyRing?
        let decrypted = try map(message, path: "$", nonString: .notEncrypted) { (text, path) throws(PNCryptError) in
            do throws(PNCryptError) {
                let ciphertext = try Base64.decode(text)
                var match = try (chosen ?? keys).decrypt(ciphertext, reading: .only(scheme), content: .text)
                defer { wipe(&match.plaintext) }
                if chosen == nil { chosen = try KeyRing(keys: [keys.keys[match.keyIndex]]) }
                guard let string = String(validating: match.plaintext, as: UTF8.self) else {
                    throw CryptoModule.decryptionFailed
                }
                return .string(string)
            } catch {
                throw PNCryptError(error.code, "at \(path): \(error.message)", offset: error.offset)
            }
        }
        guard chosen != nil else { throw noLeaf(.notEncrypted, "is ciphertext") }
        return decrypted
    }

    /// Rebuilds `value` with every string leaf replaced by `leaf(text, path)`.
    static func map(_ value: JSONValue, path: String, nonString: PNCryptError.Code,
                    _ leaf: (String, String) throws(PNCryptError) -> JSONValue) throws(PNCryptError) -> JSONValue {
        switch value {
        case .string(let text):
            return try leaf(text, path)
        case .array(let elements):
            var out: [JSONValue] = []
            out.reserveCapacity(elements.count)
            for (i, element) in elements.enumerated() {
                out.append(try map(element, path: "\(path)[\(i)]", nonString: nonString, leaf))
            }
            return .array(out)
        case .object(let object):
            var out = JSONObject()
            for (key, element) in object {
                out.append(try map(element, path: path + member(key), nonString: nonString, leaf), forKey: key)
            }
            return .object(out)
        case .null, .bool, .number:
            let kind = switch value {
            case .null: "null"
            case .bool: "a boolean"
            default: "a number"
            }
            throw PNCryptError(nonString, "legacy33 messages can hold only strings: \(path) is \(kind)")
        }
    }

    /// The error for a message without string leaves.
    private static func noLeaf(_ code: PNCryptError.Code, _ what: String) -> PNCryptError {
        PNCryptError(code, "the legacy33 message holds no string, so nothing in it \(what)")
    }

    /// `.key` for identifier-like keys, `["key"]` otherwise.
    private static func member(_ key: String) -> String {
        let identifier = !key.isEmpty && key.unicodeScalars.allSatisfy {
            ($0.properties.isAlphabetic && $0.isASCII) || $0 == "_" || ("0"..."9").contains($0)
        } && !("0"..."9").contains(key.unicodeScalars.first!)
        return identifier ? ".\(key)" : "[\(JSONValue.string(key).serializedString())]"
    }
}
