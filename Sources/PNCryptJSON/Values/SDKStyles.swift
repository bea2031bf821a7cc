// The Go, Ruby, PHP and Kotlin/Java SDKs' publish serializers (`JSONStyle.go`, `.ruby`, `.php`, `.kotlin`), rule
// by rule as docs/sdk-styles.md lists them with their source files, pinned by Vectors/styles.json.

extension JSONWriter {
    /// Writes `value` as the SDK of `style` serializes the value it would hold after reading this JSON: objects
    /// without repeated keys (Go: sorted; Kotlin: without null members), integers exact (PHP: up to 64 bits), other
    /// numbers through `Double`.
    mutating func writeSDK(_ value: JSONValue, style: JSONStyle, top: Bool) {
        switch value {
        case .null: appendASCII("null")
        case .bool(let flag): appendASCII(flag ? "true" : "false")
        case .number(let number): appendASCII(SDKNumbers.text(number, style: style))
        case .string(let string):
            if top && style == .php {
                // PubNubUtil::writeValueAsString: a string is put between quotes as it is.
                output.append(UInt8(ascii: "\""))
                appendUTF8(string)
                output.append(UInt8(ascii: "\""))
            } else {
                writeSDKString(string, style: style)
            }
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeSDK(element, style: style, top: false)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, member) in SDKObjects.members(object, style: style).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeSDKString(member.key, style: style)
                output.append(UInt8(ascii: ":"))
                writeSDK(member.value, style: style, top: false)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private mutating func appendASCII(_ text: String) {
        appendUTF8(text)
    }

    private mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { output.append($0) }
    }

    /// A string as the style's serializer writes it.
    private mutating func writeSDKString(_ string: String, style: JSONStyle) {
        output.append(UInt8(ascii: "\""))
        for scalar in string.unicodeScalars {
            let value = scalar.value
            switch value {
            case 0x22, 0x5C, 0x00..<0x20:
                writeEscape(UInt8(value))
            case 0x2F where style == .php:
                writeEscape(UInt8(value))
            case 0x3C where style == .go, 0x3E where style == .go, 0x26 where style == .go:
                writeUnicodeEscape(UInt16(value))
            case 0x20..<0x80:
                output.append(UInt8(value))
            case 0x2028 where style == .kotlin, 0x2029 where style == .kotlin:
                // Gson's JsonWriter escapes these two always, HTML escaping or not.
                writeUnicodeEscape(UInt16(value))
            default:
                switch style {
                case .go:
                    // encoding/json escapes U+2028/2029; the SDK then writes every rune above 127 as uint16(rune).
                    writeUnicodeEscape(UInt16(truncatingIfNeeded: value))
                case .php:
                    if value >= 0x10000 {
                        let rest = value - 0x10000
                        writeUnicodeEscape(UInt16(0xD800 + (rest >> 10)))
                        writeUnicodeEscape(UInt16(0xDC00 + (rest & 0x3FF)))
                    } else {
                        writeUnicodeEscape(UInt16(value))
                    }
                default:
                    for byte in String(scalar).utf8 { output.append(byte) }
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

/// Object members as each SDK holds and writes them: one per key.
enum SDKObjects {
    package static func members(_ object: JSONObject, style: JSONStyle) -> [(key: String, value: JSONValue)] {
        var order: [String] = []
        var values: [String: JSONValue] = [:]
        for member in object.members {
            if values.updateValue(member.value, forKey: member.key) == nil { order.append(member.key) }
        }
        // Go's map keys are sorted by their bytes (Swift's `<` on String compares otherwise).
        if style == .go { order.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } }
        // Gson without serializeNulls drops a member whose value is null (JsonWriter.nullValue after a name).
        if style == .kotlin { order.removeAll { values[$0] == .null } }
        return order.map { ($0, values[$0]!) }
    }

    /// The keys whose member the style drops (Kotlin: a null value, the last one when the key repeats).
    static func droppedKeys(_ object: JSONObject, style: JSONStyle) -> [String] {
        guard style == .kotlin else { return [] }
        var last: [String: JSONValue] = [:], order: [String] = []
        for member in object.members where last.updateValue(member.value, forKey: member.key) == nil {
            order.append(member.key)
        }
        return order.filter { last[$0] == .null }
    }

    /// The keys of `object` that appear more than once (each once, in first order).
    static func repeatedKeys(_ object: JSONObject) -> [String] {
        var seen: Set<String> = [], repeated: [String] = []
        for member in object.members where !seen.insert(member.key).inserted && !repeated.contains(member.key) {
            repeated.append(member.key)
        }
        return repeated
    }
}

/// Numbers as Go, Ruby, PHP and Java print them.
enum SDKNumbers {
    /// The text `style`'s SDK writes for `number`.
    package static func text(_ number: JSONNumber, style: JSONStyle) -> String {
        if number.isIntegerLiteral {
            let literal = number.literal
            let integer = literal == "-0" ? "0" : literal
            // PHP's json_decode reads an integer beyond 64 bits as a float.
            if style != .php || number.int64Value != nil { return integer }
        }
        // Beyond a Double's range the SDK cannot publish the message at all (Go's Unmarshal, Ruby's generator and
        // PHP's json_encode refuse infinity): the literal is kept, and `changes(in:)` says so.
        guard let value = Double(number.literal), value.isFinite else { return number.literal }
        return double(value, style: style)
    }

    /// Whether `style`'s SDK cannot hold `number` (a non-integer, or a PHP integer beyond 64 bits, too large for
    /// a `Double`).
    static func isUnpublishable(_ number: JSONNumber, style: JSONStyle) -> Bool {
        if number.isIntegerLiteral && (style != .php || number.int64Value != nil) { return false }
        return !(Double(number.literal)?.isFinite ?? false)
    }

    /// A finite `Double` as `style`'s SDK writes it (Go's encoding/json, Ruby's Float#to_s, PHP's json_encode
    /// with serialize_precision -1, Java's Double.toString): the shortest digits that read back, laid out by each
    /// language's rule.
    package static func double(_ value: Double, style: JSONStyle) -> String {
        let sign = value.sign == .minus ? "-" : ""
        guard value != 0 else { return sign + (style == .ruby || style == .kotlin ? "0.0" : "0") }
        if style == .kotlin { return sign + java(value.magnitude) }
        let (digits, point) = shortestDigits(value.magnitude)
        let exponential: Bool
        switch style {
        case .go: exponential = value.magnitude < 1e-6 || value.magnitude >= 1e21
        case .ruby: exponential = point < -3 || point > 15
        default: exponential = point < -3 || point > 17
        }
        if exponential {
            var mantissa = String(digits.first!)
            if digits.count > 1 {
                mantissa += "." + digits.dropFirst()
            } else if style != .go {
                mantissa += ".0"
            }
            let exponent = point - 1
            var magnitude = String(exponent.magnitude)
            // Go keeps two digits for positive exponents (e+21); Ruby for both (e-07); PHP none.
            if magnitude.count < 2 && (style == .ruby || (style == .go && exponent >= 0)) {
                magnitude = "0" + magnitude
            }
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + magnitude
        }
        var text: String
        if point <= 0 {
            text = "0." + String(repeating: "0", count: -point) + digits
        } else if point >= digits.count {
            text = digits + String(repeating: "0", count: point - digits.count) + (style == .ruby ? ".0" : "")
        } else {
            let index = digits.index(digits.startIndex, offsetBy: point)
            text = digits[..<index] + "." + digits[index...]
        }
        return sign + text
    }

    /// Java's `Double.toString` of a positive finite `value`, as specified from JDK 19 (Raffaello Giulietti's
    /// algorithm; older JDKs sometimes give other digits: `1.0E23` as `9.999999999999999E22`): the decimal of
    /// fewest digits, but at least two, that reads back as `value`, the closest to it of those; plain when
    /// 10^-3 <= value < 10^7 (`0.001`, `9999999.0`), otherwise `d.dddE±n` (`1.0E7`, `1.5E-7`, `4.9E-324`), always
    /// with a digit after the point.
    static func java(_ value: Double) -> String {
        var (digits, point) = shortestDigits(value)
        if digits.count == 1 && value < .leastNormalMagnitude {
            (digits, point) = javaTwoDigits(value, digits: digits, point: point)
        }
        if point >= -2 && point <= 7 {
            if point <= 0 { return "0." + String(repeating: "0", count: -point) + digits }
            if point >= digits.count { return digits + String(repeating: "0", count: point - digits.count) + ".0" }
            let index = digits.index(digits.startIndex, offsetBy: point)
            return digits[..<index] + "." + digits[index...]
        }
        let rest = digits.dropFirst()
        return String(digits.first!) + "." + (rest.isEmpty ? "0" : rest) + "E" + String(point - 1)
    }

    /// Java's choice when one digit reads back as a subnormal `value` (0.`digits` × 10^`point`): the closest
    /// decimal of at most two digits that reads back (ties to an even last digit). Only below 10^-322 is that not
    /// the one digit itself: there the rounding interval (2^-1074 wide) holds several two-digit decimals
    /// (`Double.toString(2 * Double.MIN_VALUE)` is `9.9E-324`, not `1.0E-323`).
    private static func javaTwoDigits(_ value: Double, digits: String, point: Int) -> (digits: String, point: Int) {
        // Measured in units of 10^(point - 3): value = n × 2^-1074, and 2^-1074 = 4.9406564584124654e-324.
        let units = Double(value.bitPattern) * 4.9406564584124654 * pow10(3 - point - 324)
        var best: (digits: String, point: Int, distance: Double)?
        // Two digits t × 10^(point - 2) (t in 10...99), and t × 10^(point - 3) (t in 90...99) just below
        // 10^(point - 1), where the one digit is 1.
        let candidates = (10...99).map { ($0, point, Double($0 * 10)) } + (90...99).map { ($0, point - 1, Double($0)) }
        for (t, place, size) in candidates {
            guard Double("\(t)e\(place - 2)") == value else { continue }
            let distance = (size - units).magnitude
            if let current = best, distance > current.distance
                || (distance == current.distance && t % 2 == 1) { continue }
            var text = String(t)
            while text.count > 1 && text.last == "0" { text.removeLast() }
            best = (text, place, distance)
        }
        guard let best else { return (digits, point) }
        return (best.digits, best.point)
    }

    /// 10 to the power `exponent` (a small one), as a `Double`.
    private static func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<exponent.magnitude { result *= 10 }
        return exponent < 0 ? 1 / result : result
    }

    /// The shortest decimal digits that read back as `value` (positive, finite), without leading or trailing
    /// zeros, and the position of the decimal point: value = 0.digits × 10^point.
    static func shortestDigits(_ value: Double) -> (digits: String, point: Int) {
        // Swift's description is the shortest round-trip text ("1e-07", "123.45", "1.5e+300").
        let exact = exactValue(value.description)
        return (exact.digits, exact.point)
    }

    /// Sign, digits and exponent of a number's exact value (value = 0.digits × 10^point), zero's sign dropped.
    static func exactValue(_ literal: String) -> (negative: Bool, digits: String, point: Int) {
        let negative = literal.hasPrefix("-")
        let body = negative ? literal.dropFirst() : Substring(literal)
        let parts = body.split(whereSeparator: { $0 == "e" || $0 == "E" })
        var exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        var digits = ""
        var seenPoint = false
        for character in parts.first ?? "" {
            if character == "." { seenPoint = true; continue }
            digits.append(character)
            if seenPoint { exponent -= 1 }
        }
        var trimmed = Substring(digits)
        while trimmed.first == "0" { trimmed = trimmed.dropFirst() }
        while trimmed.last == "0" { trimmed = trimmed.dropLast(); exponent += 1 }
        if trimmed.isEmpty { return (false, "", 0) }
        return (negative, String(trimmed), exponent + trimmed.count)
    }
}

extension JSONValue {
    /// What writing this value in `style` changes, one sentence each (empty when nothing is lost): characters
    /// outside the BMP in the Go style, numbers that do not survive the SDK's `Double`, repeated object keys
    /// (`go`, `ruby`, `php`, `kotlin` keep one), object members with a `null` value (`kotlin` drops them), and a
    /// `php` string message written unescaped when it holds `"`, `\` or a control character. Object key order
    /// (`go` sorts) is not a change: JSON objects have none.
    ///
    /// - Parameter style: the style the value would be written in.
    /// - Returns: the changes, in document order, at most one sentence per kind and value.
    package func changes(in style: JSONStyle) -> [String] {
        guard JSONStyle.sdkStyles.contains(style) else { return [] }
        var found: [String] = []
        func note(_ sentence: String) { if !found.contains(sentence) { found.append(sentence) } }
        func visitString(_ string: String) {
            guard style == .go else { return }
            for scalar in string.unicodeScalars where scalar.value >= 0x10000 {
                let hex = String(scalar.value & 0xFFFF, radix: 16)
                note("the Go SDK writes \(String(scalar)) (U+\(String(scalar.value, radix: 16, uppercase: true)))"
                     + " as \\u\(String(repeating: "0", count: 4 - hex.count) + hex), another character")
            }
        }
        func visit(_ value: JSONValue, top: Bool) {
            switch value {
            case .string(let string):
                visitString(string)
                if top && style == .php
                    && string.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\"" || $0 == "\\" }) {
                    note("the PHP SDK publishes a string message unescaped between quotes: with a quote, backslash"
                         + " or control character in it, the text is not JSON")
                }
            case .number(let number):
                if SDKNumbers.isUnpublishable(number, style: style) {
                    note("\(style.sdkName) cannot publish the number \(number.literal): it is beyond a float's range"
                         + " (pncrypt writes it as it is)")
                    return
                }
                let written = SDKNumbers.text(number, style: style)
                let before = SDKNumbers.exactValue(number.literal), after = SDKNumbers.exactValue(written)
                if before.digits != after.digits || before.point != after.point || before.negative != after.negative {
                    note("\(style.sdkName) writes the number \(number.literal) as \(written)")
                }
            case .array(let elements):
                for element in elements { visit(element, top: false) }
            case .object(let object):
                for key in SDKObjects.repeatedKeys(object) {
                    note("\(style.sdkName) keeps only the last value of the repeated key \"\(key)\"")
                }
                for key in SDKObjects.droppedKeys(object, style: style) {
                    note("\(style.sdkName) drops the member \"\(key)\": its value is null")
                }
                for member in object.members {
                    visitString(member.key)
                    visit(member.value, top: false)
                }
            default:
                break
            }
        }
        visit(self, top: true)
        return found
    }
}

extension JSONStyle {
    /// The styles of the SDKs whose serializers rewrite a value (`writeSDK`): numbers, repeated keys, for `go`
    /// and `php` some strings, for `kotlin` null members.
    static let sdkStyles: Set<JSONStyle> = [.go, .ruby, .php, .kotlin]
    /// The styles that write every value back exactly (`isExact`).
    package static let exactStyles: [JSONStyle] = allCases.filter(\.isExact)

    /// Whether this style writes every value back exactly (string contents, number literals, every member):
    /// parsing what it writes gives the same `JSONValue`. False for `go`, `ruby`, `php` and `kotlin`, which
    /// rewrite values as their SDKs do (`JSONValue.changes(in:)` says when).
    /// A switch, not `sdkStyles.contains`: the line and C paths ask it per message.
    package var isExact: Bool {
        switch self {
        case .go, .ruby, .php, .kotlin: false
        case .compact, .apple, .python, .ascii: true
        }
    }

    /// Who writes this style's bytes, for messages: "the Go SDK", "the Python SDK", ...
    package var sdkName: String {
        switch self {
        case .compact: "compact JSON (JavaScript's JSON.stringify)"
        case .apple: "the Objective-C and Swift SDKs (NSJSONSerialization)"
        case .python: "the Python SDK"
        case .ascii: "the C# SDK"
        case .go: "the Go SDK"
        case .ruby: "the Ruby SDK"
        case .php: "the PHP SDK"
        case .kotlin: "the Kotlin/Java SDK"
        }
    }
}

extension JSONStyle {
    /// What tells this style's bytes apart, in a few words ("HTML escapes and 16-bit escapes").
    package var traits: String {
        switch self {
        case .compact: "raw UTF-8, no spaces"
        case .apple: "escaped slashes, raw UTF-8"
        case .python: "spaces after , and :, \\u escapes"
        case .ascii: "\\u escapes with surrogate pairs, raw slashes"
        case .go: "HTML escapes and 16-bit \\u escapes, sorted keys"
        case .ruby: "raw UTF-8, Ruby floats"
        case .php: "escaped slashes and \\u escapes; a string raw between quotes"
        case .kotlin: "Gson: raw UTF-8 but \\u2028 \\u2029, null members dropped, Java doubles"
        }
    }
}
