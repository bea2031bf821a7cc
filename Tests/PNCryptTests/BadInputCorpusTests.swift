import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptCompression
@testable import PNCrypt
import PNCryptTestSupport

/// One malformed input and the exact error it must give: its code, a word of its message, and (where the
/// error points into the input) its offset.
struct BadInput: Sendable, CustomTestStringConvertible {
    enum Offset: Sendable, Equatable {
        /// Not checked (the error has no meaningful position).
        case unchecked
        /// The error must carry exactly this offset.
        case at(Int)
    }

    let layer: String
    let name: String
    let code: PNCryptError.Code
    let keyword: String
    let offset: Offset
    let run: @Sendable () throws(PNCryptError) -> Void

    init(_ layer: String, _ name: String, _ code: PNCryptError.Code, _ keyword: String, offset: Offset = .unchecked,
         _ run: @escaping @Sendable () throws(PNCryptError) -> Void) {
        self.layer = layer
        self.name = name
        self.code = code
        self.keyword = keyword
        self.offset = offset
        self.run = run
    }

    var testDescription: String { "\(layer): \(name)" }

    /// Base64 text that `Base64.decode` refuses as not Base64, with `keyword` in its message, at `offset`.
    static func base64(_ name: String, _ text: String, _ keyword: String, at offset: Int) -> BadInput {
        BadInput("base64", name, .notBase64, keyword, offset: .at(offset)) { () throws(PNCryptError) in
            _ = try Base64.decode(text)
        }
    }
}

/// Inputs shared by several cases.
enum BadInputs {
    static let key = try! CipherKey("enigma")
    static let module = CryptoModule(key: key)
    static let crypto = MessageCrypto(keys: try! KeyRing(keys: [key]), scheme: .acrh)
    static let zeroIV = [UInt8](repeating: 0, count: 16)

    /// spec.json's deterministic acrh vector: a 26-byte header, then 32 bytes of ciphertext.
    static let acrh = try! Base64.decode(Package.specCiphertext("spec-acrh-mycipherkey-zero-iv"))
    /// spec.json's legacy-random-iv vector `yay!` with the IV `1234567890123456`: one block, padding 12 bytes of 0x0C.
    static let randomIVYay = try! Base64.decode(Package.specCiphertext("spec-legacy-random-iv-yay"))
    /// spec.json's legacy vector `yay!`.
    static let legacyYay = try! Base64.decode(Package.specCiphertext("spec-legacy-yay"))

    /// `randomIVYay` with IV byte `index` XORed with `mask`: in CBC that flips the same bit of the plaintext, so
    /// the padding the cipher finds is chosen exactly (never a 1-in-256 accident).
    static func tamperedIV(_ index: Int, _ mask: UInt8) -> [UInt8] {
        var bytes = randomIVYay
        bytes[index] ^= mask
        return bytes
    }

    /// A received message carrying `plaintext` encrypted as `legacy`.
    static func message(withPlaintext plaintext: [UInt8]) -> JSONValue {
        .string(try! module.encrypt(plaintext, scheme: .legacy))
    }

    /// Decrypts a received message and throws its status, checking the policy's marker was delivered.
    static func receive(_ message: JSONValue, scheme: Scheme? = nil) throws(PNCryptError) {
        var crypto = crypto
        crypto.reading = ReadPolicy(scheme: scheme, legacyScheme: nil)
        let result = crypto.decrypt(message, policy: .marker)
        guard let status = result.status else { return }
        guard result.message == .string(DecryptionPolicy.markerText) else {
            throw PNCryptError(.invalidValue, "the marker was not delivered")
        }
        throw status.error
    }

    static func stream(_ bytes: [UInt8], scheme: Scheme? = nil, chunk: Int = 5) throws(PNCryptError) {
        let stage = try StreamDecryptor(key: key, reading: ReadPolicy(scheme: scheme, legacyScheme: nil))
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunk, bytes.count)
            try withBytes(bytes[offset..<end]) { (b) throws(PNCryptError) in try stage.update(b) { _ in } }
            offset = end
        }
        try stage.finish { _ in }
    }

    static func json(_ text: [UInt8]) throws(PNCryptError) { _ = try JSONValue(parsing: text) }

    /// "hello" 20 times, gzip-compressed: a 10-byte header, deflate data, CRC-32, ISIZE.
    static let gzip = try! Compressor.compress(Array(String(repeating: "hello", count: 20).utf8))
    static let zlib: [UInt8] = {
        // zlib framing of the same deflate data: header 78 9C, the deflate stream, Adler-32 (big-endian).
        let text = Array(String(repeating: "hello", count: 20).utf8)
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in text { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let adler = b << 16 | a
        return [0x78, 0x9C] + gzip[10..<(gzip.count - 8)]
            + [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
    }()

    /// Decompresses in one call.
    static func gunzip(_ bytes: [UInt8], format: CompressionFormat = .gzipOrZlib,
                       limit: Int = Decompressor.defaultOutputLimit) throws(PNCryptError) {
        _ = try Decompressor.decompress(bytes, format: format, outputLimit: .bytes(limit))
    }

    static func gunzipStreamed(_ bytes: [UInt8], chunk: Int) throws(PNCryptError) {
        let decompressor = try Decompressor(format: .gzip, outputLimit: .bytes(1 << 20))
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunk, bytes.count)
            try decompressor.update(bytes[offset..<end]) { _ in }
            offset = end
        }
        try decompressor.finish()
    }

    static func flipped(_ bytes: [UInt8], at index: Int) -> [UInt8] {
        var copy = bytes
        copy[index < 0 ? copy.count + index : index] ^= 0x01
        return copy
    }
    static func json(_ text: String) throws(PNCryptError) { _ = try JSONValue(parsing: text) }

    /// 100,000 nested arrays, then their closing brackets.
    static let deepArrays = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
    /// `{"a":` 100,000 times.
    static let deepObjects = Array(String(repeating: "{\"a\":", count: 100_000).utf8)
    /// A 10 MB string that never ends.
    static let tenMB = 10 * 1024 * 1024
    static let unterminatedString = [UInt8(ascii: "\"")] + [UInt8](repeating: UInt8(ascii: "x"), count: tenMB)
    /// A 10 MB string with an invalid escape at its end.
    static let badEscapeAtEnd = [UInt8(ascii: "\"")] + [UInt8](repeating: UInt8(ascii: "y"), count: tenMB)
        + Array("\\x\"".utf8)
}

@Suite struct BadInputCorpusTests {
    typealias B = BadInputs

    /// The `acrh` header cut after every length 0 to 25: each cut is a malformedHeader error at exactly that
    /// offset (before 4 bytes there is no `PNED`, so offset 0 says "not acrh data").
    static let headerCuts: [BadInput] = (0..<26).map { n in
        let keyword = switch n {
        case 0: "empty input"
        case 1...3: "no PNED header"
        case 4: "no version byte"
        case 5...8: "cryptor id needs 4 bytes"
        case 9: "no metadata length byte"
        default: "announces 16 metadata bytes, only \(n - 10) present"
        }
        return BadInput("header", "cut at byte \(n)", .malformedHeader, keyword, offset: .at(n <= 3 ? 0 : n)) {
            () throws(PNCryptError) in _ = try B.module.decryptBinary(B.acrh.prefix(n), reading: .only(.acrh))
        }
    }

    static let header: [BadInput] = [
        BadInput("header", "0xFF length with both bytes missing", .malformedHeader,
                 "0xFF needs 2 more bytes, only 0", offset: .at(10)) { () throws(PNCryptError) in
            _ = try CryptorHeader.parse(Array("PNED\u{1}ACRH".utf8) + [0xFF])
        },
        BadInput("header", "0xFF length with one byte missing", .malformedHeader,
                 "0xFF needs 2 more bytes, only 1", offset: .at(11)) { () throws(PNCryptError) in
            _ = try CryptorHeader.parse(Array("PNED\u{1}ACRH".utf8) + [0xFF, 0x00])
        },
        BadInput("header", "0xFF length announcing 256 bytes, 16 present", .malformedHeader,
                 "announces 256 metadata bytes, only 16", offset: .at(28)) { () throws(PNCryptError) in
            _ = try B.module.decryptBinary(Array("PNED\u{1}ACRH".utf8) + [0xFF, 0x01, 0x00] + B.zeroIV)
        },
        BadInput("header", "metadata longer than the data", .malformedHeader,
                 "announces 48 metadata bytes, only 32", offset: .at(42)) { () throws(PNCryptError) in
            _ = try B.module.decryptBinary(Array("PNED\u{1}ACRH".utf8) + [48] + B.zeroIV + B.zeroIV)
        },
        BadInput("header", "unsupported version 2", .unknownCryptor, "unsupported header version 2",
                 offset: .at(4)) { () throws(PNCryptError) in
            var bytes = B.acrh
            bytes[4] = 2
            _ = try B.module.decryptBinary(bytes)
        },
        BadInput("header", "unknown cryptor id", .unknownCryptor, "unknown cryptor id 'ACRX'",
                 offset: .at(5)) { () throws(PNCryptError) in
            var bytes = B.acrh
            bytes[8] = UInt8(ascii: "X")
            _ = try B.module.decryptBinary(bytes)
        },
        BadInput("header", "15-byte ACRH IV", .malformedHeader, "the IV must be 16", offset: .at(9)) {
            () throws(PNCryptError) in
            let header = try CryptorHeader(metadata: Array(B.zeroIV.prefix(15))).encoded()
            _ = try B.module.decryptBinary(header + B.zeroIV)
        },
        BadInput("header", "header and no ciphertext", .wrongKeyOrCorrupt, "empty ciphertext after the PNED header") {
            () throws(PNCryptError) in _ = try B.module.decryptBinary(B.acrh.prefix(26))
        },
        BadInput("header", "inspect a cut header", .malformedHeader, "cut short", offset: .at(20)) {
            () throws(PNCryptError) in _ = try Inspection(B.acrh.prefix(20))
        },
        BadInput("header", "stream with a cut header", .malformedHeader, "only 6 present", offset: .at(16)) {
            () throws(PNCryptError) in try B.stream(Array(B.acrh.prefix(16)))
        },
    ]

    static let cipher: [BadInput] = [
        BadInput("cipher", "legacy ciphertext of 15 bytes", .wrongKeyOrCorrupt, "15 bytes, not a whole number") {
            () throws(PNCryptError) in _ = try B.module.decryptBinary(B.legacyYay.prefix(15), reading: .only(.legacy))
        },
        BadInput("cipher", "legacy ciphertext with a trailing garbage byte", .wrongKeyOrCorrupt,
                 "17 bytes, not a whole number") { () throws(PNCryptError) in
            _ = try B.module.decryptBinary(B.legacyYay + [0x00], reading: .only(.legacy))
        },
        BadInput("cipher", "acrh ciphertext of 31 bytes", .wrongKeyOrCorrupt, "31 bytes, not a whole number") {
            () throws(PNCryptError) in _ = try B.module.decryptBinary(B.acrh.dropLast())
        },
        BadInput("cipher", "legacy33 ciphertext of 1 byte", .wrongKeyOrCorrupt, "1 byte, not a whole number") {
            () throws(PNCryptError) in _ = try B.module.decryptBinary([0x42], reading: .only(.legacy33))
        },
        BadInput("cipher", "random-IV data shorter than its IV", .wrongKeyOrCorrupt, "15 bytes is too short") {
            () throws(PNCryptError) in
            _ = try B.module.decryptBinary(B.randomIVYay.prefix(15), reading: .only(.legacyRandomIV))
        },
        BadInput("cipher", "random-IV data with no ciphertext", .wrongKeyOrCorrupt,
            "no ciphertext after the 16-byte IV") {
            () throws(PNCryptError) in
            _ = try B.module.decryptBinary(B.randomIVYay.prefix(16), reading: .only(.legacyRandomIV))
        },
        BadInput("cipher", "padding byte 0x00", .wrongKeyOrCorrupt, "cannot decrypt: wrong key") {
            () throws(PNCryptError) in
            _ = try B.module.decryptBinary(B.tamperedIV(15, 0x0C), reading: .only(.legacyRandomIV))
        },
        BadInput("cipher", "padding byte 0x11 (longer than a block)", .wrongKeyOrCorrupt, "cannot decrypt") {
            () throws(PNCryptError) in
            _ = try B.module.decryptBinary(B.tamperedIV(15, 0x0C ^ 0x11), reading: .only(.legacyRandomIV))
        },
        BadInput("cipher", "padding bytes that disagree", .wrongKeyOrCorrupt, "cannot decrypt") {
            () throws(PNCryptError) in
            _ = try B.module.decryptBinary(B.tamperedIV(10, 0x01), reading: .only(.legacyRandomIV))
        },
        BadInput("cipher", "wrong key (legacy)", .wrongKeyOrCorrupt, "cannot decrypt: wrong key") {
            () throws(PNCryptError) in _ = try CryptoModule(cipherKey: "not enigma").decryptBinary(B.legacyYay)
        },
        BadInput("cipher", "streamed padding byte 0x00", .wrongKeyOrCorrupt, "cannot decrypt") {
            () throws(PNCryptError) in try B.stream(B.tamperedIV(15, 0x0C), chunk: 7)
        },
        BadInput("cipher", "streamed unaligned acrh", .wrongKeyOrCorrupt, "not a whole number") {
            () throws(PNCryptError) in try B.stream(B.acrh + [1, 2, 3])
        },
        BadInput("cipher", "key ring: no key decrypts", .wrongKeyOrCorrupt,
            "cannot decrypt") { () throws(PNCryptError) in
            _ = try KeyRing(["a", "b"]).decrypt(B.legacyYay)
        },
    ]

    static let utf8: [BadInput] = [
        BadInput("plaintext", "lone continuation byte", .wrongKeyOrCorrupt,
            "cannot decrypt: wrong key, wrong scheme, or corrupt data") { () throws(PNCryptError) in
            try B.receive(B.message(withPlaintext: [0x80]))
        },
        BadInput("plaintext", "overlong '/' (C0 AF)", .wrongKeyOrCorrupt,
            "cannot decrypt: wrong key, wrong scheme, or corrupt data") { () throws(PNCryptError) in
            try B.receive(B.message(withPlaintext: [0x22, 0xC0, 0xAF, 0x22]))
        },
        BadInput("plaintext", "encoded surrogate (ED A0 80)", .wrongKeyOrCorrupt,
            "cannot decrypt: wrong key, wrong scheme, or corrupt data") { () throws(PNCryptError) in
            try B.receive(B.message(withPlaintext: [0xED, 0xA0, 0x80]))
        },
        BadInput("plaintext", "truncated 3-byte sequence", .wrongKeyOrCorrupt,
            "cannot decrypt: wrong key, wrong scheme, or corrupt data") { () throws(PNCryptError) in
            try B.receive(B.message(withPlaintext: Array("caf".utf8) + [0xE2, 0x82]))
        },
        BadInput("plaintext", "legacy33 leaf that is not UTF-8", .wrongKeyOrCorrupt,
            "at $[1]: cannot decrypt: wrong key, wrong scheme, or corrupt data") { () throws(PNCryptError) in
            let leaf = try B.module.encrypt([0xFF, 0xFE], scheme: .legacy33)
            let good = try B.module.encrypt(Array("ok".utf8), scheme: .legacy33)
            _ = try Legacy33Message.decrypt([.string(good), .string(leaf)], keys: KeyRing(keys: [B.key]),
                                            scheme: .legacy33)
        },
    ]

    static let base64: [BadInput] = [
        .base64("URL-safe alphabet", "q/xJ-qN6", "URL-safe Base64 is not accepted", at: 4),
        .base64("3 characters", "abc", "3 characters left over", at: 3),
        .base64("data after padding", "ab=c", "data after '=' padding", at: 3),
        .base64("padding too early", "a===", "misplaced '='", at: 1),
        .base64("incomplete padding", "ab=", "incomplete padding", at: 2),
        .base64("space inside", "ab cd===", "unexpected space", at: 2),
        BadInput("base64", "non-ASCII byte", .notBase64, "byte 0xc3", offset: .at(1)) {
            () throws(PNCryptError) in _ = try Base64.decode([0x61, 0xC3, 0xA9, 0x62])
        },
        BadInput("base64", "trailing garbage after a whole message", .notBase64, "data after '=' padding",
                 offset: .at(24)) { () throws(PNCryptError) in
            _ = try B.module.decrypt("q/xJqqN6qbiZMXYmiQC1Fw==x")
        },
        BadInput("base64", "received message that is not Base64", .notBase64, "unexpected character '!'",
                 offset: .at(5)) { () throws(PNCryptError) in
            try B.receive("hello!")
        },
    ]

    static let json: [BadInput] = [
        BadInput("json", "arrays nested 100,000 deep", .jsonTooDeep, "deeper than 512 levels", offset: .at(512)) {
            () throws(PNCryptError) in try B.json(B.deepArrays)
        },
        BadInput("json", "objects nested 100,000 deep", .jsonTooDeep, "deeper than 512 levels",
                 offset: .at(512 * 5)) { () throws(PNCryptError) in try B.json(B.deepObjects)
        },
        BadInput("json", "10 MB string that never ends", .invalidJSON, "unterminated string starting at offset 0",
                 offset: .at(B.tenMB + 1)) { () throws(PNCryptError) in try B.json(B.unterminatedString)
        },
        BadInput("json", "10 MB string with an invalid escape at its end", .invalidJSON, "invalid escape '\\x'",
                 offset: .at(B.tenMB + 1)) { () throws(PNCryptError) in try B.json(B.badEscapeAtEnd)
        },
        BadInput("json", "escape \\x", .invalidJSON, "invalid escape '\\x'", offset: .at(2)) {
            () throws(PNCryptError) in try B.json(#"["\x"]"#)
        },
        BadInput("json", "escape \\'", .invalidJSON, "invalid escape '\\''", offset: .at(2)) {
            () throws(PNCryptError) in try B.json(#""a\'""#)
        },
        BadInput("json", "\\u with 2 hex digits", .invalidJSON, "expected 4 hex digits", offset: .at(5)) {
            () throws(PNCryptError) in try B.json(#""\u12""#)
        },
        BadInput("json", "\\u with non-hex digits", .invalidJSON, "expected 4 hex digits", offset: .at(3)) {
            () throws(PNCryptError) in try B.json(#""\uZZZZ""#)
        },
        BadInput("json", "backslash at the end of input", .invalidJSON, "unterminated string", offset: .at(3)) {
            () throws(PNCryptError) in try B.json(#""a\"#)
        },
        BadInput("json", "raw control character in a string", .invalidJSON, "unescaped control character U+000A",
                 offset: .at(2)) { () throws(PNCryptError) in try B.json("\"a\nb\"")
        },
        BadInput("json", "invalid UTF-8 in a string", .invalidJSON, "invalid UTF-8 in string", offset: .at(2)) {
            () throws(PNCryptError) in try B.json([0x22, 0x61, 0xC3, 0x28, 0x22])
        },
        BadInput("json", "trailing garbage", .invalidJSON, "unexpected 'x' after the JSON value", offset: .at(3)) {
            () throws(PNCryptError) in try B.json("{} x")
        },
        BadInput("json", "extra closing bracket", .invalidJSON, "unexpected ']' after the JSON value", offset: .at(3)) {
            () throws(PNCryptError) in try B.json("[1]]")
        },
        BadInput("json", "trailing comma", .invalidJSON, "trailing comma", offset: .at(3)) {
            () throws(PNCryptError) in try B.json("[1,]")
        },
        BadInput("json", "leading zero", .invalidJSON, "leading zeros", offset: .at(1)) {
            () throws(PNCryptError) in try B.json("01")
        },
        BadInput("json", "NaN", .invalidJSON, "expected a JSON value, found 'N'", offset: .at(0)) {
            () throws(PNCryptError) in try B.json("NaN")
        },
        BadInput("json", "byte order mark", .invalidJSON, "found byte 0xEF", offset: .at(0)) {
            () throws(PNCryptError) in try B.json([0xEF, 0xBB, 0xBF, 0x31])
        },
        BadInput("json", "object key that is not a string", .invalidJSON, "expected a string key or '}'",
                 offset: .at(1)) { () throws(PNCryptError) in try B.json("{1:2}")
        },
        BadInput("json", "received message text that is not JSON", .invalidJSON, "expected ','", offset: .at(3)) {
            () throws(PNCryptError) in _ = try B.crypto.decrypt(jsonText: Array("[1 2]".utf8), policy: .marker)
        },
    ]

    static let envelopes: [BadInput] = [
        BadInput("history", "not an array", .invalidJSON, "expected [[messages], start, end]") {
            () throws(PNCryptError) in _ = try HistoryResponse(parsing: Array("{}".utf8))
        },
        BadInput("history", "two parts", .invalidJSON, "not a history response") { () throws(PNCryptError) in
            _ = try HistoryResponse(parsing: Array(#"[["a"],1]"#.utf8))
        },
        BadInput("history", "messages not in an array", .invalidJSON, "not a history response") {
            () throws(PNCryptError) in _ = try HistoryResponse(parsing: Array(#"["a",1,2]"#.utf8))
        },
        BadInput("history", "cut short", .invalidJSON, "after array element, found end of input", offset: .at(12)) {
            () throws(PNCryptError) in _ = try HistoryResponse(parsing: Array(#"[["a"],1,2"#.utf8) + [0x20, 0x20])
        },
        BadInput("history", "trailing garbage", .invalidJSON, "after the JSON value", offset: .at(11)) {
            () throws(PNCryptError) in _ = try HistoryResponse(parsing: Array(#"[["a"],1,2]]"#.utf8))
        },
        BadInput("history", "a message that fails is reported with its index", .wrongKeyOrCorrupt, "cannot decrypt") {
            () throws(PNCryptError) in
            let history = try HistoryResponse(parsing: Array(#"[["q/xJqqN6qbiZMXYmiQC1Fw=="],1,2]"#.utf8))
            let result = try MessageCrypto(cipherKey: "not enigma", reading: .only(.legacy))
                .decrypt(history: history, policy: .passThrough)
            guard let status = result.statuses.first, status.index == 0, result.response == history else { return }
            throw status.error
        },
        BadInput("counts", "no channels object", .invalidJSON, "expected {\"channels\"") { () throws(PNCryptError) in
            _ = try MessageCounts(parsing: Array(#"{"channels":5}"#.utf8))
        },
        BadInput("counts", "count that is not an integer", .invalidJSON, "of channel \"a\" is not an integer") {
            () throws(PNCryptError) in _ = try MessageCounts(parsing: Array(#"{"channels":{"a":1.5}}"#.utf8))
        },
        BadInput("message", "not a JSON string, marker policy", .notEncrypted, "not a JSON string") {
            () throws(PNCryptError) in try B.receive(["a": 1])
        },
        BadInput("message", "legacy33 message with a number leaf", .notEncrypted, "$.n is a number") {
            () throws(PNCryptError) in try B.receive(["n": 1], scheme: .legacy33)
        },
        BadInput("message", "legacy33 publish of a null leaf", .notEncryptable, "$[0] is null") {
            () throws(PNCryptError) in _ = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33).encrypt([nil])
        },
        BadInput("message", "acrh message whose header is cut", .malformedHeader, "cut short", offset: .at(12)) {
            () throws(PNCryptError) in try B.receive(.string(Base64.encode(B.acrh.prefix(12))))
        },
    ]

    static let empty: [BadInput] = [
        BadInput("empty", "decrypt legacy", .wrongKeyOrCorrupt, "empty ciphertext") { () throws(PNCryptError) in
            _ = try B.module.decryptBinary([UInt8](), reading: .only(.legacy))
        },
        BadInput("empty", "decrypt legacy-random-iv", .wrongKeyOrCorrupt, "0 bytes is too short") {
            () throws(PNCryptError) in _ = try B.module.decryptBinary([UInt8](), reading: .only(.legacyRandomIV))
        },
        BadInput("empty", "decrypt legacy33", .wrongKeyOrCorrupt, "empty ciphertext") { () throws(PNCryptError) in
            _ = try B.module.decryptBinary([UInt8](), reading: .only(.legacy33))
        },
        BadInput("empty", "decrypt Base64 text", .wrongKeyOrCorrupt, "empty ciphertext") { () throws(PNCryptError) in
            _ = try B.module.decrypt("")
        },
        BadInput("empty", "stream decrypt, format detected", .wrongKeyOrCorrupt,
            "0 bytes is too short for the legacy random-IV file format") {
            () throws(PNCryptError) in try B.stream([])
        },
        BadInput("empty", "stream decrypt acrh", .malformedHeader, "empty input: no PNED header", offset: .at(0)) {
            () throws(PNCryptError) in try B.stream([], scheme: .acrh)
        },
        BadInput("empty", "encrypt acrh", .emptyPlaintext, "cannot encrypt empty data") { () throws(PNCryptError) in
            _ = try B.module.encryptBinary([UInt8]())
        },
        BadInput("empty", "stream encrypt acrh", .emptyPlaintext, "cannot encrypt empty data") {
            () throws(PNCryptError) in
            let stage = try StreamEncryptor(key: B.key, scheme: .acrh)
            try stage.finish { _ in }
        },
        BadInput("empty", "inspect", .wrongKeyOrCorrupt, "empty ciphertext") { () throws(PNCryptError) in
            _ = try Inspection([UInt8]())
        },
        BadInput("empty", "JSON", .invalidJSON, "expected a JSON value, found end of input", offset: .at(0)) {
            () throws(PNCryptError) in try B.json("")
        },
        BadInput("empty", "JSON of whitespace", .invalidJSON, "found end of input", offset: .at(3)) {
            () throws(PNCryptError) in try B.json(" \n\t")
        },
        BadInput("empty", "history", .invalidJSON, "found end of input", offset: .at(0)) { () throws(PNCryptError) in
            _ = try HistoryResponse(parsing: [UInt8]())
        },
        BadInput("empty", "message counts", .invalidJSON, "found end of input", offset: .at(0)) {
            () throws(PNCryptError) in _ = try MessageCounts(parsing: [UInt8]())
        },
        BadInput("empty", "received message text", .invalidJSON, "found end of input", offset: .at(0)) {
            () throws(PNCryptError) in _ = try B.crypto.decrypt(jsonText: [UInt8](), policy: .passThrough)
        },
        BadInput("empty", "received empty string message", .wrongKeyOrCorrupt, "empty ciphertext") {
            () throws(PNCryptError) in try B.receive("", scheme: .legacy)
        },
        BadInput("empty", "cipher key", .invalidKey, "the cipher key is empty") { () throws(PNCryptError) in
            _ = try CipherKey("")
        },
        BadInput("empty", "key ring", .invalidKey, "no cipher key given") { () throws(PNCryptError) in
            _ = try KeyRing([String]())
        },
    ]

    static let gzip: [BadInput] = [
        BadInput("gzip", "bad CRC", .corruptCompressedData, "gzip CRC mismatch") { () throws(PNCryptError) in
            try B.gunzip(B.flipped(B.gzip, at: -8))
        },
        BadInput("gzip", "bad length (ISIZE)", .corruptCompressedData, "gzip ISIZE (length) mismatch") {
            () throws(PNCryptError) in try B.gunzip(B.flipped(B.gzip, at: -4))
        },
        BadInput("gzip", "trailing garbage", .corruptCompressedData, "trailing garbage after gzip member",
                 offset: .at(B.gzip.count)) {
            () throws(PNCryptError) in try B.gunzip(B.gzip + [0x41])
        },
        BadInput("gzip", "trailing zero padding", .corruptCompressedData, "trailing garbage",
                 offset: .at(B.gzip.count)) {
            () throws(PNCryptError) in try B.gunzip(B.gzip + [0, 0, 0, 0], format: .gzip)
        },
        BadInput("gzip", "cut in the trailer", .corruptCompressedData, "gzip data is truncated") {
            () throws(PNCryptError) in try B.gunzip(Array(B.gzip.dropLast(3)))
        },
        BadInput("gzip", "cut in the header", .corruptCompressedData, "truncated") { () throws(PNCryptError) in
            try B.gunzip(Array(B.gzip.prefix(5)), format: .gzip)
        },
        BadInput("gzip", "streamed, bad CRC", .corruptCompressedData, "gzip CRC mismatch") { () throws(PNCryptError) in
            try B.gunzipStreamed(B.flipped(B.gzip, at: -8), chunk: 3)
        },
        BadInput("gzip", "not gzip at all", .corruptCompressedData, "incorrect header check") {
            () throws(PNCryptError) in try B.gunzip(Array("hello, world".utf8), format: .gzip)
        },
        BadInput("gzip", "reserved deflate block type", .corruptCompressedData, "invalid block type") {
            () throws(PNCryptError) in try B.gunzip(Array(B.gzip.prefix(10)) + [0x07, 0, 0, 0, 0, 0, 0, 0, 0])
        },
        BadInput("gzip", "zlib with a bad Adler-32", .corruptCompressedData, "Adler-32") { () throws(PNCryptError) in
            try B.gunzip(B.flipped(B.zlib, at: -1), format: .zlib)
        },
        BadInput("gzip", "output above the limit", .outputLimitExceeded, "limit") { () throws(PNCryptError) in
            try B.gunzip(B.gzip, limit: 50)
        },
        BadInput("empty", "gunzip", .corruptCompressedData, "data is empty", offset: .at(0)) {
            () throws(PNCryptError) in try B.gunzip([], format: .gzip)
        },
        BadInput("empty", "inflate raw deflate", .corruptCompressedData, "data is empty", offset: .at(0)) {
            () throws(PNCryptError) in try B.gunzip([], format: .rawDeflate)
        },
    ]

    static let all = headerCuts + header + cipher + utf8 + base64 + json + envelopes + empty + gzip

    @Test("the corpus covers every layer with at least 60 inputs")
    func size() {
        #expect(Self.all.count >= 60)
        #expect(Set(Self.all.map(\.layer)).isSuperset(of: ["header", "cipher", "plaintext", "base64", "json",
                                                            "history", "counts", "message", "gzip", "empty"]))
    }

    @Test("each malformed input gives its exact error", arguments: BadInputCorpusTests.all)
    func exactError(_ input: BadInput) {
        let error = expectPNError { () throws(PNCryptError) in try input.run() }
        guard let error else { return }
        #expect(error.code == input.code, "\(error.message)")
        #expect(error.message.contains(input.keyword), "message: \(error.message)")
        #expect(!error.message.contains("\n"))
        if case .at(let offset) = input.offset {
            #expect(error.offset == offset, "message: \(error.message)")
        }
    }
}
