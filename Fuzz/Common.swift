// Shared helpers of the fuzz targets (compiled into every target by scripts/checks/fuzz.sh; not part of SwiftPM).
import PNCrypt

#if canImport(Glibc)
import Glibc
#endif

/// Stops the run with a message: libFuzzer records the input as a crash.
func fail(_ what: String, _ input: [UInt8]) -> Never {
    let hex = input.prefix(256).map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
        .joined()
    fatalError("invariant broken: \(what)\ninput (\(input.count) bytes, first 256 hex): \(hex)")
}

/// Checks an error thrown by the library: a `PNCryptError` with one of `allowed` codes, a non-empty one-line
/// message, and an offset (when given) inside the input.
func check(_ error: PNCryptError, allowed: [PNCryptError.Code], inputCount: Int, _ input: [UInt8],
           context: String) {
    guard allowed.contains(error.code) else { fail("\(context): unexpected code \(error.code): \(error.message)",
        input) }
    guard !error.message.isEmpty else { fail("\(context): empty error message", input) }
    guard !error.message.contains("\n") else { fail("\(context): message is not one line: \(error.message)", input) }
    if let offset = error.offset, offset < 0 || offset > inputCount {
        fail("\(context): offset \(offset) outside 0...\(inputCount): \(error.message)", input)
    }
}

/// The fixed key every decrypt target uses.
let fuzzKey: CipherKey = try! CipherKey("enigma")
let fuzzModule = CryptoModule(key: fuzzKey)

/// Runs `bytes` through a stage in pieces cut at the positions `cuts` (to exercise chunk boundaries).
func runStream(_ bytes: [UInt8], _ stage: any ByteStreamStage, cuts: [Int]) throws(PNCryptError) -> [UInt8] {
    var out: [UInt8] = []
    var start = 0
    let sink: ByteSink = { (b: UnsafeRawBufferPointer) throws(PNCryptError) in out.append(contentsOf: b) }
    for cut in cuts.sorted() + [bytes.count] where cut >= start && cut <= bytes.count {
        let piece = Array(bytes[start..<cut])
        let result = piece.withUnsafeBytes { b in attempt { () throws(PNCryptError) in try stage.update(b, sink) } }
        try result.get()
        start = cut
    }
    try stage.finish(sink)
    return out
}

/// `result` as a Result with the typed error.
func attempt<T>(_ body: () throws(PNCryptError) -> T) -> Result<T, PNCryptError> {
    do throws(PNCryptError) { return .success(try body()) } catch { return .failure(error) }
}

/// Cut positions derived from the input, so chunked runs differ between inputs but replay exactly.
func cuts(for input: [UInt8]) -> [Int] {
    guard !input.isEmpty else { return [] }
    let seed = Int(input[0]) &+ Int(input[input.count / 2]) &* 7
    return [1 + seed % 5, 4, 9 + seed % 3, 10, 12, 26, 27 + seed % 16, input.count / 2].filter { $0 < input.count }
}

/// The body of the decrypt-SCHEME targets.
///
/// With an even first byte the input is ciphertext: one-shot decrypt fails only with format/cipher codes, and when
/// it succeeds, encrypting the plaintext again with the same IV gives the input back; Base64 and streamed decrypts
/// (in pieces) agree with it. With an odd first byte the rest is plaintext: it round-trips through every path.
func decryptTarget(_ scheme: Scheme, _ data: UnsafePointer<UInt8>, _ size: Int) {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    if let first = input.first, first & 1 == 1 {
        roundTrip(scheme, Array(input.dropFirst()), ivSource: input)
        return
    }
    let allowed: [PNCryptError.Code] = scheme == .acrh ? [.wrongKeyOrCorrupt, .malformedHeader, .unknownCryptor]
        : [.wrongKeyOrCorrupt]
    let oneShot = attempt { () throws(PNCryptError) in try fuzzModule.decryptBinary(input, reading: .only(scheme)) }
    let viaBase64 = attempt { () throws(PNCryptError) in
        try fuzzModule.decryptBytes(Base64.encode(input), reading: .only(scheme))
    }
    same(oneShot, viaBase64, input, "base64 decrypt")
    switch oneShot {
    case .failure(let error):
        check(error, allowed: allowed, inputCount: input.count, input, context: "decrypt \(scheme)")
    case .success(let plaintext):
        // Empty data cannot be encrypted: its ciphertext (one block of padding) is checked by its length instead.
        if plaintext.isEmpty {
            let prefix = scheme == .legacyRandomIV ? 16 : scheme == .acrh
                ? ((try? CryptorHeader.parse(input))?.length ?? 0) : 0
            guard input.count - prefix == 16 else { fail("empty plaintext from more than one block", input) }
            break
        }
        let again: [UInt8]?
        switch scheme {
        case .legacy, .legacy33: again = try? fuzzModule.encryptBinary(plaintext, scheme: scheme)
        case .legacyRandomIV:
            again = try? fuzzModule.encryptBinary(plaintext, scheme: scheme, iv: Array(input[0..<16]))
        case .acrh:
            guard let (header, length) = try? CryptorHeader.parse(input) else { fail("acrh success without header",
                input) }
            let body = try? fuzzModule.encryptBinary(plaintext, scheme: .acrh, iv: header.metadata)
            again = body.map { Array(input[0..<length]) + $0.dropFirst(header.encodedLength) }
        }
        guard again == input else { fail("re-encrypting the plaintext does not give the input", input) }
    }
    // Streams: the file formats (legacy-random-iv, acrh), explicit and detected.
    if scheme == .legacyRandomIV || scheme == .acrh {
        let streamed = attempt { () throws(PNCryptError) in
            try runStream(input, StreamDecryptor(key: fuzzKey, reading: .only(scheme)), cuts: cuts(for: input))
        }
        same(oneShot, streamed, input, "stream decrypt \(scheme)")
        let auto = CryptoModule(key: fuzzKey, reading: .headerlessAs(.legacyRandomIV))
        let detected = attempt { () throws(PNCryptError) in try auto.decryptBinary(input) }
        let detectedStream = attempt { () throws(PNCryptError) in
            try runStream(input, StreamDecryptor(key: fuzzKey), cuts: cuts(for: input).reversed())
        }
        same(detected, detectedStream, input, "detected stream decrypt")
        if case .failure(let error) = detected {
            check(error, allowed: [.wrongKeyOrCorrupt, .malformedHeader, .unknownCryptor], inputCount: input.count,
                  input, context: "detected decrypt")
        }
    }
}

/// Plaintext through encrypt and decrypt, one-shot and streamed.
func roundTrip(_ scheme: Scheme, _ plaintext: [UInt8], ivSource: [UInt8]) {
    let randomIV = scheme == .legacyRandomIV || scheme == .acrh
    let iv: [UInt8]? = randomIV ? (ivSource + [UInt8](repeating: 7, count: 16)).suffix(16) : nil
    let sealed = attempt { () throws(PNCryptError) in try fuzzModule.encryptBinary(plaintext, scheme: scheme, iv: iv) }
    switch sealed {
    case .failure(let error):
        // Empty data cannot be encrypted, in any scheme.
        guard plaintext.isEmpty, error.code == .emptyPlaintext else {
            fail("encrypt \(scheme) failed: \(error)", plaintext)
        }
    case .success(let ciphertext):
        guard (try? fuzzModule.decryptBinary(ciphertext, reading: .only(scheme))) == plaintext else {
            fail("decrypt(encrypt(x)) != x for \(scheme)", plaintext)
        }
        guard (try? fuzzModule.decryptBytes(Base64.encode(ciphertext), reading: .only(scheme))) == plaintext else {
            fail("base64 round trip for \(scheme)", plaintext)
        }
        guard scheme != .legacy33 else { return }
        // Three file formats: legacy is the bare fixed-IV ciphertext, the others carry their IV.
        let fileScheme = scheme
        let fileIV = iv
        let streamed = attempt { () throws(PNCryptError) in
            try runStream(plaintext, StreamEncryptor(key: fuzzKey, scheme: fileScheme, iv: fileIV),
                          cuts: cuts(for: plaintext))
        }
        guard case .success(let file) = streamed,
              file == (try? fuzzModule.encryptBinary(plaintext, scheme: fileScheme, iv: fileIV)) else {
            fail("stream encrypt differs from one-shot for \(fileScheme)", plaintext)
        }
        let back = attempt { () throws(PNCryptError) in
            try runStream(file, StreamDecryptor(key: fuzzKey,
                reading: .headerlessAs(scheme == .legacy ? .legacy : .legacyRandomIV)),
                          cuts: cuts(for: file))
        }
        guard case .success(let opened) = back, opened == plaintext else {
            fail("stream decrypt(stream encrypt(x)) != x for \(fileScheme)", plaintext)
        }
    }
}

/// Two outcomes must be the same plaintext, or errors with the same code.
func same(_ a: Result<[UInt8], PNCryptError>, _ b: Result<[UInt8], PNCryptError>, _ input: [UInt8], _ what: String) {
    switch (a, b) {
    case (.success(let x), .success(let y)): guard x == y else { fail("\(what): plaintexts differ", input) }
    case (.failure(let x), .failure(let y)):
        guard x.code == y.code else { fail("\(what): \(x.code) (\(x.message)) vs \(y.code) (\(y.message))", input) }
    case (.success, .failure(let y)): fail("\(what): one-shot succeeded, other failed: \(y)", input)
    case (.failure(let x), .success): fail("\(what): one-shot failed (\(x)), other succeeded", input)
    }
}

/// Whether `style` cannot write `value` as one JSON value (the PHP style's raw string message): in a record such a
/// field is not delivered decrypted but fails with a status (issue 55 item 7), so that its plaintext cannot rewrite
/// the record around it.
func writesNonJSON(_ value: JSONValue, _ style: JSONStyle) -> Bool {
    !style.isExact && (try? JSONValue(parsing: value.serialized(style: style))) == nil
}
