// The conformance run's judging: recording a check (a declared difference makes a failure known), judging the
// peer's answer, and comparing bytes, texts and values as SDKs hold them.
import PNCrypt
import PNCryptFiles
import SystemPackage

extension ConformanceRunner {
    // MARK: Recording

    typealias Shapes = Set<ConformanceDifference.Outcome>

    /// Records a check. A failure whose disagreement has one of `shapes` and that a declared difference covering
    /// the check excuses (that outcome) becomes known; any other failure stays a failure, declared or not.
    /// Never inlined: `judge`, which calls it four times, is copied for each check's closure (closure
    /// specialization), and with this inlined each copy was 6.8 KB of the command (76 KB in all).
    @inline(never)
    func record(id: String, family: String, direction: String, _ outcome: ConformanceCheck.Outcome,
                _ detail: String = "", exchanged: Bool = false, shapes: Shapes = []) {
        var outcome = outcome
        var detail = detail
        if outcome == .failed, let info {
            if let excuse = info.excuse(id, family: family, shapes: shapes) {
                outcome = .known
                detail = "known difference (\(excuse.outcome.rawValue): \(excuse.reason)): \(detail)"
            } else if let declared = info.declarations(for: id, family: family).first {
                detail += " (the peer declares a difference here that excuses only \"\(declared.outcome.rawValue)\": "
                    + "this disagreement is not that)"
            }
        }
        checks.append(ConformanceCheck(id: id, family: family, direction: direction, outcome: outcome,
                                       detail: detail, sent: exchanged ? lastSent : "",
                                       got: exchanged ? lastGot : ""))
        if checks.count % 100 == 0 { progress?(checks.count) }
    }

    /// Records a check from the peer's answer: `judge` returns nil when it agrees, else what is wrong. The shape of
    /// a disagreement (what a declared difference may excuse): an error where a value was due `rejects`; a value
    /// where a failure was due `accepts` (unless `shapes` says otherwise: a wrong key's answer has no excusable
    /// shape); a wrong value whatever `shapes` finds in it; a broken peer none.
    func judge(_ id: String, _ family: String, _ direction: String, _ answer: Answer,
               expectFailure: Bool = false, shapes: ((JSONValue) -> Shapes)? = nil,
               _ judge: (JSONValue) -> String?) {
        switch answer {
        case .unsupported:
            record(id: id, family: family, direction: direction, .skipped, "the peer does not support it")
        case .broken(let why):
            record(id: id, family: family, direction: direction, .failed, why, exchanged: true)
        case .error(let message):
            if expectFailure {
                record(id: id, family: family, direction: direction, .passed)
            } else {
                record(id: id, family: family, direction: direction, .failed, "the peer failed: \(message)",
                       exchanged: true, shapes: [.rejects])
            }
        case .value(let value):
            if let problem = judge(value) {
                let found = shapes?(value) ?? (expectFailure ? [.accepts] : [])
                record(id: id, family: family, direction: direction, .failed, problem, exchanged: true,
                       shapes: found)
            } else {
                record(id: id, family: family, direction: direction, .passed)
            }
        }
    }

    /// The shapes of a disagreement where the peer gave `got` for the value `expected` (`received`: the message
    /// as it was received, when there was one).
    static func valueShapes(_ got: JSONValue, expected: JSONValue, received: JSONValue? = nil) -> Shapes {
        var shapes: Shapes = []
        if case .string(let text) = expected, let inner = try? JSONValue(parsing: text),
           ConformanceValues.same(got, inner) {
            shapes.insert(.jsonValue)
        }
        if got == .null { shapes.insert(.null) }
        if ConformanceValues.same(got, expected, numbersAsDoubles: true) { shapes.insert(.numbersAsDoubles) }
        if case .string(let text) = got, isScalarText(text, of: expected) { shapes.insert(.scalarsAsText) }
        if let received, got == received { shapes.insert(.asReceived) }
        return shapes
    }

    /// Whether `text` is how an SDK that hands over strings writes the scalar `value`: its JSON text; a number of
    /// the same value to 14 significant digits (PHP writes a float with `precision` 14: 2^63 as
    /// "9.2233720368548E+18"); `true` as "1" and `false` as "" (PHP's string conversion).
    static func isScalarText(_ text: String, of value: JSONValue) -> Bool {
        switch value {
        case .number(let number):
            guard text != number.literal else { return true }
            guard let got = Double(text), let want = Double(number.literal), got.isFinite, want.isFinite else {
                return false
            }
            // Rounding to 14 significant digits moves a number by at most 5e-14 of itself.
            return got == want || abs(got - want) <= abs(want) * 6e-14
        case .bool(let flag):
            return text == (flag ? "true" : "false") || text == (flag ? "1" : "")
        case .null:
            return text == "null"
        default:
            return false
        }
    }

    /// The shapes of a wrong `decrypt_text` answer for the plaintext `expected`: the text or value it gave, read as
    /// `valueShapes` reads a value (the expected text as JSON when it is JSON).
    static func textShapes(_ answer: JSONValue, expected: String) -> Shapes {
        let got = answer["value"] ?? answer["text"] ?? .null
        let want = (try? JSONValue(parsing: expected)) ?? .string(expected)
        var shapes = valueShapes(got, expected: want)
        if answer["text"] != nil { shapes.remove(.null) }
        return shapes
    }

    /// The shapes of a publish body that is not the expected one: `same-value` when it holds the message's value,
    /// `numbers-as-doubles` when it holds it with numbers as Doubles.
    static func bodyShapes(_ answer: JSONValue, message: JSONValue, scheme: Scheme) -> Shapes {
        guard let body = answer["body"]?.stringValue, let plaintext = plaintext(ofBody: body, scheme: scheme),
              let value = try? JSONValue(parsing: plaintext) else { return [] }
        var shapes: Shapes = []
        if ConformanceValues.same(value, message) { shapes.insert(.sameValue) }
        if ConformanceValues.same(value, message, numbersAsDoubles: true) { shapes.insert(.numbersAsDoubles) }
        return shapes
    }

    // MARK: Comparisons

    /// The plaintext of a publish body (a JSON string of Base64), when pncrypt can read it with the publish key.
    static func plaintext(ofBody body: String, scheme: Scheme) -> [UInt8]? {
        guard let value = try? JSONValue(parsing: body), let base64 = value.stringValue,
              let bytes = try? Base64.decode(base64),
              let module = try? CryptoModule(cipherKey: publishKey, scheme: scheme) else { return nil }
        return try? module.decryptBinary(bytes, reading: .only(scheme))
    }

    static func compareBytes(_ answer: JSONValue?, _ expected: [UInt8]) -> String? {
        guard let text = answer?.stringValue else { return #"no "data" string in the answer"# }
        guard let got = try? Base64.decode(text) else { return #""data" is not Base64"# }
        return got == expected ? nil : "expected \(Base64.encode(expected))"
    }

    static func compareText(_ answer: JSONValue, _ expected: String) -> String? {
        if let text = answer["text"]?.stringValue {
            return text == expected ? nil : "expected the text \(Self.cut(Array(expected.utf8)))"
        }
        // An SDK that parses decrypted JSON hands the value over (the text itself when it is not JSON).
        if let value = answer["value"] {
            if let parsed = try? JSONValue(parsing: expected) {
                return ConformanceValues.same(value, parsed) ? nil : "expected the value \(Self.cut(parsed))"
            }
            return value == .string(expected) ? nil : "expected the text \(Self.cut(Array(expected.utf8)))"
        }
        return #"no "text" or "value" in the answer"#
    }

    static func pncryptReads(_ answer: JSONValue?, module: CryptoModule, scheme: Scheme, plaintext: [UInt8])
        -> String? {
        guard let text = answer?.stringValue else { return #"no "data" string in the answer"# }
        guard let bytes = try? Base64.decode(text) else { return #""data" is not Base64"# }
        do {
            let got = try module.decryptBinary(bytes, reading: .only(scheme))
            return got == plaintext ? nil : "pncrypt decrypted it to \(Base64.encode(got)), expected "
                + Base64.encode(plaintext)
        } catch {
            return "pncrypt cannot decrypt it as \(scheme.rawValue): \(error)"
        }
    }

    static func family(of path: FilePath) -> String {
        let name = path.lastComponent?.shown ?? path.shown
        return name.hasSuffix(".json") ? String(name.dropLast(5)) : name
    }

    static func cut(_ bytes: [UInt8], limit: Int = 300) -> String {
        String(decoding: bytes.prefix(limit), as: UTF8.self) + (bytes.count > limit ? "…" : "")
    }

    static func cut(_ value: JSONValue) -> String { cut(value.serialized()) }
}


/// JSON values compared as SDKs hold them: numbers by value, objects without regard to member order (Go sorts
/// keys), a repeated key by its last value.
enum ConformanceValues {
    /// Whether `a` and `b` are the same value; with `numbersAsDoubles`, every number compared as the Double
    /// nearest to it (integers too).
    static func same(_ a: JSONValue, _ b: JSONValue, numbersAsDoubles: Bool = false) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            if x.literal == y.literal { return true }
            if numbersAsDoubles, let p = Double(x.literal), let q = Double(y.literal) { return p == q }
            // Integers exactly (an SDK keeps them of any size); anything else as the Double every SDK holds.
            if isInteger(x.literal) && isInteger(y.literal) { return canonical(x.literal) == canonical(y.literal) }
            if let p = Double(x.literal), let q = Double(y.literal) { return p == q }
            return false
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1, numbersAsDoubles: numbersAsDoubles) }
        case (.object(let x), .object(let y)):
            let left = lastValues(x), right = lastValues(y)
            guard left.count == right.count else { return false }
            for (key, value) in left {
                guard let other = right[key], same(value, other, numbersAsDoubles: numbersAsDoubles) else {
                    return false
                }
            }
            return true
        default:
            return a == b
        }
    }

    private static func isInteger(_ literal: String) -> Bool {
        let digits = literal.hasPrefix("-") ? literal.dropFirst() : Substring(literal)
        return !digits.isEmpty && digits.allSatisfy { $0 >= "0" && $0 <= "9" }
    }

    /// An integer literal without leading zeros, `-0` as `0`.
    private static func canonical(_ literal: String) -> String {
        let negative = literal.hasPrefix("-")
        let digits = (negative ? literal.dropFirst() : Substring(literal)).drop { $0 == "0" }
        return digits.isEmpty ? "0" : (negative ? "-" : "") + digits
    }

    private static func lastValues(_ object: JSONObject) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (key, value) in object { out[key] = value }
        return out
    }

    static func hasNonIntegerNumber(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let number):
            let literal = number.literal
            let digits = literal.hasPrefix("-") ? literal.dropFirst() : Substring(literal)
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return true }
            return (digits.count > 1 && digits.first == "0") || literal == "-0"
        case .array(let elements): return elements.contains(where: hasNonIntegerNumber)
        case .object(let object): return object.contains { hasNonIntegerNumber($0.value) }
        default: return false
        }
    }

    static func hasRepeatedKey(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let elements): return elements.contains(where: hasRepeatedKey)
        case .object(let object):
            return Set(object.keys).count != object.count || object.contains { hasRepeatedKey($0.value) }
        default: return false
        }
    }
}
