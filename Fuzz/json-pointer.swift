// Fuzz target: JSON Pointers (`--field`; `JSONPointer`, `MessageCrypto.encrypt(field:of:)` and
// `decrypt(field:of:policy:)`).
//
// Input: the pointer's text, a 0x00 byte, then the record (without a 0x00 byte, the whole input is the pointer and
// the record is `{"a":[1,{"b":"c"}]}`).
//
// Invariants: a pointer parses exactly when RFC 6901 and the limits allow it (an independent reading here), and its
// tokens written back give its text; a refusal is a one-line `invalidValue`. `range(in:)` finds exactly the value a
// walk of the parsed record finds (the last member of a repeated key, code point by code point; array indices
// without leading zeros; a non-empty pointer only in an object), or fails: with the parser's own error when the
// record is not JSON, else with a one-line `invalidValue`. The range holds that value's text and nothing else.
// Encrypting the field, then decrypting it in every style, keeps every other byte of the record, and the field is
// one JSON value (the same value in the exact styles); it has a status exactly when its style cannot write the value
// as JSON (issue 55 item 7).
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let split = input.firstIndex(of: 0) ?? input.count
    let text = String(decoding: input[..<split], as: UTF8.self)
    let record = split < input.count ? Array(input[(split + 1)...]) : Array(#"{"a":[1,{"b":"c"}]}"#.utf8)

    let parsedPointer = attempt { () throws(PNCryptError) in try JSONPointer(text) }
    let expectedTokens = pointerTokens(text)
    let pointer: JSONPointer
    switch parsedPointer {
    case .failure(let error):
        guard expectedTokens == nil else { fail("a valid pointer was refused: \(error)", input) }
        check(error, allowed: [.invalidValue], inputCount: input.count, input, context: "JSONPointer")
        return 0
    case .success(let value):
        guard let expectedTokens else { fail("an invalid pointer was accepted: \(value.tokens)", input) }
        guard value.tokens == expectedTokens, value.description == text else {
            fail("tokens \(value.tokens), expected \(expectedTokens)", input)
        }
        guard pointerText(value.tokens) == text else { fail("the tokens written back differ from the text", input) }
        pointer = value
    }

    let found = attempt { () throws(PNCryptError) in try pointer.range(in: record) }
    let parsed = attempt { () throws(PNCryptError) in try JSONValue(parsing: record) }
    let expected: JSONValue?
    switch parsed {
    case .failure(let error):
        guard case .failure(let other) = found, other.code == error.code, other.offset == error.offset else {
            fail("range(in:) of a record that is not JSON: \(found), the parser says \(error)", input)
        }
        return 0
    case .success(let value):
        expected = walk(value, pointer.tokens)
    }
    guard let expected else {
        guard case .failure(let error) = found else { fail("range(in:) found a field the walk does not", input) }
        check(error, allowed: [.invalidValue], inputCount: input.count, input, context: "range(in:)")
        return 0
    }
    guard case .success(let range) = found else { fail("range(in:) missed the field: \(found)", input) }
    guard range.lowerBound >= 0, range.upperBound <= record.count, !range.isEmpty else {
        fail("range \(range) outside the record of \(record.count) bytes", input)
    }
    let field = record[range]
    guard !isBlankByte(field.first!), !isBlankByte(field.last!) else { fail("the range has white space", input) }
    guard (try? JSONValue(parsing: field)) == expected else { fail("the range does not hold the value", input) }

    // The field encrypted and decrypted again: every other byte of the record kept.
    let iv = Array(input.suffix(16)) + [UInt8](repeating: 0x5A, count: max(0, 16 - input.count))
    let writer = MessageCrypto(keys: fuzzRing, scheme: .legacyRandomIV)
    let sealed = attempt { () throws(PNCryptError) in try writer.encrypt(field: pointer, of: record, iv: iv) }
    guard case .success(let encrypted) = sealed else { fail("encrypting the field failed: \(sealed)", input) }
    let wire = keptAround(encrypted, record, range, input, "encrypt")
    guard case .string? = try? JSONValue(parsing: wire) else { fail("the encrypted field is not a JSON string", input) }
    for style in JSONStyle.allCases {
        // Read as what it is: under the headerless rule some plaintexts read two ways (`ambiguous`, the rule's).
        let reader = MessageCrypto(keys: fuzzRing, scheme: .legacyRandomIV, reading: .only(.legacyRandomIV),
                                   style: style)
        for policy in [DecryptionPolicy.marker, .passThrough] {
            let opened = attempt { () throws(PNCryptError) in
                try reader.decrypt(field: pointer, of: encrypted, policy: policy)
            }
            guard case .success(let result) = opened else { fail("decrypting the field in \(style): \(opened)", input) }
            // A value the style cannot write as JSON fails the field (a status); any other decrypts.
            let unwritable = !pointer.isWholeDocument && writesNonJSON(expected, style)
            guard (result.status != nil) == unwritable else {
                fail("decrypting the field in \(style): status \(result.status?.error.message ?? "none")", input)
            }
            let back = keptAround(result.text, record, range, input, "decrypt \(style)")
            // The whole record is one message: written as its SDK writes one (PHP's raw string included).
            if pointer.isWholeDocument && !style.isExact { continue }
            guard let value = try? JSONValue(parsing: back) else {
                fail("the decrypted field in \(style) is not one JSON value", input)
            }
            if style.isExact, value != expected { fail("the decrypted field in \(style) is another value", input) }
        }
    }
    return 0
}

/// The key ring of the field round trips.
let fuzzRing: KeyRing = try! KeyRing(["enigma"])

/// `output` with the bytes of `record` outside `range` kept: returns what stands in the range's place.
func keptAround(_ output: [UInt8], _ record: [UInt8], _ range: Range<Int>, _ input: [UInt8], _ what: String)
    -> ArraySlice<UInt8> {
    let suffix = record.count - range.upperBound
    guard output.count >= range.lowerBound + suffix, output.starts(with: record[..<range.lowerBound]),
          output.suffix(suffix).elementsEqual(record[range.upperBound...]) else {
        fail("\(what): the bytes around the field changed", input)
    }
    return output[range.lowerBound..<(output.count - suffix)]
}

/// JSON white space.
func isBlankByte(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

/// RFC 6901, read independently: the tokens of `text`, nil when it is not a pointer (or over the limits).
func pointerTokens(_ text: String) -> [String]? {
    let bytes = Array(text.utf8)
    if bytes.isEmpty { return [] }
    guard bytes.count <= JSONPointer.maxLength, bytes[0] == UInt8(ascii: "/") else { return nil }
    var tokens: [String] = []
    var token: [UInt8] = []
    var index = 1
    while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "/") {
            tokens.append(String(decoding: token, as: UTF8.self))
            token = []
        } else if byte == UInt8(ascii: "~") {
            guard index + 1 < bytes.count else { return nil }
            switch bytes[index + 1] {
            case UInt8(ascii: "0"): token.append(UInt8(ascii: "~"))
            case UInt8(ascii: "1"): token.append(UInt8(ascii: "/"))
            default: return nil
            }
            index += 1
        } else {
            token.append(byte)
        }
        index += 1
    }
    tokens.append(String(decoding: token, as: UTF8.self))
    return tokens.count <= JSONPointer.maxTokens ? tokens : nil
}

/// The pointer text of `tokens` (`~` as `~0`, `/` as `~1`).
func pointerText(_ tokens: [String]) -> String {
    var bytes: [UInt8] = []
    for token in tokens {
        bytes.append(UInt8(ascii: "/"))
        for byte in token.utf8 {
            switch byte {
            case UInt8(ascii: "~"): bytes += Array("~0".utf8)
            case UInt8(ascii: "/"): bytes += Array("~1".utf8)
            default: bytes.append(byte)
            }
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The value `tokens` name in `value`, walked on the parsed tree: nil when there is none.
func walk(_ value: JSONValue, _ tokens: [String]) -> JSONValue? {
    guard !tokens.isEmpty else { return value }
    guard case .object = value else { return nil }
    var current = value
    for token in tokens {
        switch current {
        case .object(let object):
            guard let member = object.last(where: { $0.key.unicodeScalars.elementsEqual(token.unicodeScalars) }) else {
                return nil
            }
            current = member.value
        case .array(let elements):
            let digits = Array(token.utf8)
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  digits.count == 1 || digits[0] != 0x30, let index = Int(token), index < elements.count else {
                return nil
            }
            current = elements[index]
        default:
            return nil
        }
    }
    return current
}
