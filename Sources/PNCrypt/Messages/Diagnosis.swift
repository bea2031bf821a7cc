import PNCryptBase
import PNCryptJSON
import PNCryptCore

/// Why a message will or will not decrypt: every key tried with every scheme that could apply, each result
/// checked for padding, UTF-8 and JSON, and explained in plain words.
///
/// The most common encryption complaint across PubNub SDKs is `DECRYPTION_ERROR` after a configuration mismatch:
/// random vs static IV, a rotated cipher key, a client on another SDK. A diagnosis names which key and scheme
/// read the data and which clients would fail, or why nothing can read it.
///
/// ```swift
/// let diagnosis = Diagnosis(text: Array("MTIzNDU2Nzg5MDEyMzQ1NjdnONoCgo0wbuMGGMmfMX0=".utf8), keys: ring)
/// print(diagnosis.findings[0])
/// // decrypts with legacy-random-iv and key #1; a client set to a static IV (legacy) shows DECRYPTION_ERROR for it
/// ```
package struct Diagnosis: Sendable {
    /// One key and scheme tried.
    package struct Attempt: Sendable {
        /// 1-based number of the key, in the order given.
        package var keyNumber: Int
        /// The scheme tried.
        package var scheme: Scheme
        /// The plaintext, when the padding check passed.
        package var plaintext: [UInt8]?
        /// Why the cipher rejected the data, when it did.
        package var error: PNCryptError?

        /// The plaintext is valid UTF-8 (a message must be).
        package var isUTF8: Bool { plaintext.map { String(validating: $0, as: UTF8.self) != nil } ?? false }
        /// The plaintext parses as JSON.
        package var json: JSONValue? { isUTF8 ? plaintext.flatMap { try? JSONValue(parsing: $0) } : nil }
        /// Padding intact and UTF-8: a plausible message, as the one decision procedure decides text (what
        /// SDK clients deliver). pncrypt's own message decryption also requires a message (`isMessage`).
        package var isValid: Bool { Decision.qualifies(verdict, content: .text) }

        /// The plaintext is a message as the reading decision counts them (`isMessageText`): JSON, or the PHP
        /// SDK's raw string form.
        package var isMessage: Bool { isUTF8 && (json != nil || isPHPRawString) }

        private var isPHPRawString: Bool { plaintext?.withUnsafeBytes { PNCrypt.isPHPRawString($0) } ?? false }

        /// This attempt's checks, as the one decision procedure takes them (with the headerless rule's look at the
        /// first block, for a fixed-IV reading).
        var verdict: Decision.Verdict {
            let firstBlock = scheme == Scheme.headerlessPair.fixed
                ? plaintext.map { $0.withUnsafeBytes { HeaderlessRule.classify($0) } } : nil
            return Decision.Verdict(keyIndex: keyNumber - 1, scheme: scheme, padding: plaintext != nil, utf8: isUTF8,
                                    message: json != nil || isPHPRawString, firstBlock: firstBlock)
        }
    }

    /// The ciphertext bytes, when the input was Base64.
    package var ciphertext: [UInt8]?
    /// What the data is, read without a key, when it is readable.
    package var inspection: Inspection?
    /// Why the input cannot be ciphertext, when it cannot (not Base64, header cut short, unknown cryptor, ...).
    package var inputError: PNCryptError?
    /// Every key and scheme tried, in order.
    package var attempts: [Attempt]
    /// The explanation, one sentence a line, most important first.
    package var findings: [String]

    /// The attempts that gave plausible plaintext.
    package var matches: [Attempt] { attempts.filter(\.isValid) }
    /// Some key and scheme decrypts the data.
    package var decrypts: Bool { !matches.isEmpty }
    /// More than one key and scheme give plausible plaintext.
    package var isAmbiguous: Bool { matches.count > 1 }

    /// Diagnoses Base64 message text (surrounding whitespace and JSON quotes are accepted) with `keys`.
    package init(text: some Collection<UInt8>, keys: [CipherKey]) {
        attempts = []
        findings = []
        do throws(PNCryptError) {
            ciphertext = try Base64.decode(text)
        } catch {
            inputError = error
            let detail = error.message.removingFirst("not Base64: ").removingFirst(" at offset \(error.offset ?? 0)")
            findings = ["not Base64 at offset \(error.offset ?? 0): \(detail)"]
            return
        }
        diagnose(keys: keys)
    }

    /// Diagnoses raw ciphertext bytes with `keys`.
    package init(ciphertext: [UInt8], keys: [CipherKey]) {
        self.ciphertext = ciphertext
        attempts = []
        findings = []
        diagnose(keys: keys)
    }

    private mutating func diagnose(keys: [CipherKey]) {
        let data = ciphertext ?? []
        var body = data
        var schemes: [Scheme]
        do throws(PNCryptError) {
            if let (header, length) = try CryptorHeader.parse(data) {
                if let scheme = try header.scheme(reading: nil) {
                    schemes = [scheme]
                } else {
                    // The legacy cryptor's id: legacy data follows the header.
                    body = Array(data[length...])
                    schemes = Scheme.headerless
                }
            } else {
                schemes = Scheme.headerless
            }
            inspection = try Inspection(data)
        } catch {
            inputError = error
            findings = [Self.explainInput(error, data)]
            return
        }
        // Too short for an IV and a block: not a scheme whose IV comes first (legacy-random-iv).
        schemes.removeAll { $0.row.iv == .prefix && body.count < Cryptor.prefixLength($0) + Cryptor.blockSize }
        for (index, key) in keys.enumerated() {
            let module = CryptoModule(key: key)
            for scheme in schemes {
                var attempt = Attempt(keyNumber: index + 1, scheme: scheme)
                do throws(PNCryptError) {
                    attempt.plaintext = try module.decryptBinary(scheme.hasHeader ? data : body, reading: .only(scheme))
                } catch {
                    attempt.error = error
                }
                attempts.append(attempt)
            }
        }
        findings = explainAttempts(keys: keys.count)
    }

    private static func explainInput(_ error: PNCryptError, _ data: [UInt8]) -> String {
        switch error.code {
        case .unknownCryptor:
            if let (header, _) = try? CryptorHeader.parse(data) {
                return "no key and scheme decrypt this: it has a PNED header with unknown cryptor"
                    + " '\(header.cryptorIDDescription)'"
            }
            return "no key and scheme decrypt this: it has a PNED header of an unknown version (\(error.message))"
        case .malformedHeader:
            return "no key and scheme decrypt this: it starts with a PNED header that is malformed (\(error.message))"
        default:
            if data.isEmpty { return "no key and scheme decrypt this: the input is empty" }
            let kind = data.starts(with: CryptorHeader.sentinel) ? "acrh data" : "legacy data"
            return "no key and scheme decrypt this: \(kind) of \(data.count.counting("byte")): \(error.message)"
        }
    }

    private func explainAttempts(keys: Int) -> [String] {
        let matches = self.matches
        var lines: [String] = []
        if matches.count == 1, let match = matches.first {
            lines.append("decrypts with \(match.scheme) and key #\(match.keyNumber); "
                         + Self.consequence(of: match.scheme))
            if match.keyNumber > 1 {
                lines.append("key #\(match.keyNumber) is not the first key: the sender still uses an older or"
                             + " different key")
            }
            lines.append(Self.describePlaintext(match, alone: true))
            if let plaintext = match.plaintext {
                if let writers = JSONStyle.writersFinding(plaintext) { lines.append(writers) }
                if let depad = JSONStyle.phpDepadFinding(plaintext) { lines.append(depad) }
            }
        } else if matches.count > 1 {
            lines.append("ambiguous: \(matches.count) key and scheme combinations give valid plaintext")
            // The reading pncrypt's message decryption takes, when exactly one is a message.
            if let winner = try? Decision.decide(matches.map(\.verdict), content: .message, namingKeys: false) {
                let likely = matches[winner]
                let form = likely.json != nil ? "JSON as messages are" : "a message (the PHP SDK's raw string form)"
                lines.append("most likely \(likely.scheme) with key #\(likely.keyNumber), the only reading that is"
                             + " \(form); " + Self.consequence(of: likely, among: matches))
                if let plaintext = likely.plaintext, let writers = JSONStyle.writersFinding(plaintext) {
                    lines.append(writers)
                }
            }
            for match in matches {
                lines.append("- \(match.scheme) with key #\(match.keyNumber): "
                             + Self.describePlaintext(match, alone: false))
            }
            if let fixed = matches.first(where: { $0.scheme.row.iv == .fixed && $0.scheme.partner != nil }),
               let partner = fixed.scheme.partner,
               let random = matches.first(where: { $0.scheme == partner && $0.keyNumber == fixed.keyNumber }),
               let a = fixed.plaintext, let b = random.plaintext, a.dropFirst(Scheme.ivSize).elementsEqual(b) {
                lines.append("\(fixed.scheme) and \(partner) differ only in the first block: read with the other"
                             + " scheme, a message loses its first \(Scheme.ivSize) bytes or gains"
                             + " \(Scheme.ivSize) bytes of garbage")
                lines.append(Self.headerlessRuleFinding(fixed: fixed.verdict, random: random.verdict))
            }
        } else {
            let blocks = inspection?.blocks ?? 0
            let what = inspection?.header == nil ? "legacy data" : "acrh data (PNED header, cryptor ACRH)"
            lines.append("\(what) of \(blocks.counting("block")): wrong key or corrupted")
            for attempt in attempts where attempt.plaintext != nil {
                lines.append("\(attempt.scheme) with key #\(attempt.keyNumber) passes the padding check but the"
                             + " plaintext is not UTF-8: a wrong key passes that check about once in 256 tries")
            }
            lines.append("tried \(keys.counting("key")) with "
                         + Set(attempts.map(\.scheme)).map(\.rawValue).sorted().joined(separator: ", "))
        }
        return lines
    }

    /// What the headerless rule (docs/formats.md section 1) makes of one key's two legacy readings, as text.
    static func headerlessRuleFinding(fixed: Decision.Verdict, random: Decision.Verdict) -> String {
        let reason = if fixed.message && !random.message {
            "the fixed-IV reading is one JSON text and the other is not"
        } else {
            switch fixed.firstBlock {
            case .text?: "the fixed-IV reading's first 16 bytes are text"
            case .noise?: "the fixed-IV reading's first 16 bytes are not text (a decrypted IV)"
            default: "the fixed-IV reading's first 16 bytes are neither clearly text nor clearly a decrypted IV"
            }
        }
        guard let scheme = Decision.resolve(fixed: fixed, random: random, content: .text) else {
            return "the headerless rule cannot tell them apart: \(reason); name the scheme"
        }
        return "the headerless rule reads it as \(scheme) (what pncrypt decrypt gives without --scheme): \(reason)"
    }

    /// What a client set to the other legacy scheme does with a message read as `match`: when that reading is
    /// valid too, it shows other text, not DECRYPTION_ERROR.
    private static func consequence(of match: Attempt, among matches: [Attempt]) -> String {
        guard let other = match.scheme.partner, let reading = matches.first(where: { $0.scheme == other }) else {
            return consequence(of: match.scheme)
        }
        let setting = other.clientSetting
        let count = reading.plaintext?.count ?? 0
        return "a client set to \(setting) shows other text for it (\(count.counting("byte")) read"
            + " with key #\(reading.keyNumber)), without DECRYPTION_ERROR"
    }

    private static func consequence(of scheme: Scheme) -> String {
        scheme.readers
    }

    private static func describePlaintext(_ match: Attempt, alone: Bool) -> String {
        let count = match.plaintext?.count ?? 0
        guard let json = match.json else {
            if let plaintext = match.plaintext, plaintext.withUnsafeBytes({ isPHPRawString($0) }) {
                return "the plaintext (\(count.counting("byte"))) is a string between quotes, unescaped (not JSON):"
                    + " the PHP SDK's form of a string message; pncrypt reads the string between the quotes"
            }
            let what = "the plaintext (\(count.counting("byte"))) is UTF-8 but not JSON"
            // An iOS 3.3 message's string leaf is raw text (its reading qualifies as UTF-8 text): not a failure.
            if match.scheme.row.message == .stringLeaves { return what + ": an iOS 3.3 string leaf, read as text" }
            // The one reading that qualifies: not being JSON is the only reason a message is not delivered.
            guard alone else { return what }
            return what + ": give --plaintext text if the publisher encrypted a raw string (Python, Spark:"
                + " plaintext=\"text\"; C: pncrypt_module_set_plaintext); clients deliver it as a plain string,"
                + " a message must be JSON text by default"
        }
        let kind = switch json {
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
        return "the plaintext (\(count.counting("byte"))) is JSON: \(kind)"
    }

    /// The diagnosis as one JSON object, for scripts.
    package var json: JSONValue {
        var object: JSONObject = ["decrypts": .bool(decrypts), "ambiguous": .bool(isAmbiguous)]
        if let ciphertext { object.append(.number(JSONNumber(ciphertext.count)), forKey: "bytes") }
        if let inspection {
            var input: JSONObject = ["blocks": .number(JSONNumber(inspection.blocks))]
            if let header = inspection.header {
                input.append(["version": .number(JSONNumber(Int(header.version))),
                              "cryptor": .string(header.cryptorIDDescription),
                              "metadataLength": .number(JSONNumber(header.metadata.count)),
                              "iv": .string(Hex.encode(header.metadata))], forKey: "header")
            } else {
                input.append(.null, forKey: "header")
            }
            object.append(.object(input), forKey: "input")
        }
        if let inputError {
            object.append(["reason": .string(inputError.code.name), "message": .string(inputError.message),
                           "offset": inputError.offset.map { .number(JSONNumber($0)) } ?? .null], forKey: "inputError")
        }
        object.append(.array(attempts.map { attempt in
            var a: JSONObject = ["key": .number(JSONNumber(attempt.keyNumber)),
                                 "scheme": .string(attempt.scheme.rawValue),
                                 "padding": .bool(attempt.plaintext != nil), "utf8": .bool(attempt.isUTF8),
                                 "json": .bool(attempt.json != nil)]
            if attempt.isValid, let plaintext = attempt.plaintext {
                // The styles (SDK serializers) that write exactly these bytes: names only, nothing of the text.
                a.append(.array(JSONStyle.writers(of: plaintext).map { .string($0.rawValue) }), forKey: "styles")
                a.append(.string(String(decoding: plaintext, as: UTF8.self)), forKey: "plaintext")
            }
            if let error = attempt.error { a.append(.string(error.message), forKey: "error") }
            return .object(a)
        }), forKey: "attempts")
        object.append(.array(findings.map { .string($0) }), forKey: "findings")
        return .object(object)
    }
}

extension String {
    /// The string without the first occurrence of `part` (the standard library's `replacing` would link the
    /// regex runtime, about 5 MB, into libpncrypt).
    fileprivate func removingFirst(_ part: String) -> String {
        let bytes = Array(utf8), target = Array(part.utf8)
        guard !target.isEmpty, bytes.count >= target.count else { return self }
        for start in 0...(bytes.count - target.count) where bytes[start..<start + target.count].elementsEqual(target) {
            return String(decoding: bytes[..<start] + bytes[(start + target.count)...], as: UTF8.self)
        }
        return self
    }
}
