/// A JSON number, kept as its exact literal text so that nothing is lost between parsing and writing.
///
/// - A parsed number is written back unchanged: `1.50`, `1E+2` and `-0` keep their spelling.
/// - Integers of any size keep every digit: 17-digit timetokens such as `13406746729185766` and `2^70`
///   (`1180591620717411303424`) never pass through `Double`.
/// - Equality and hashing compare the literal text: `1`, `1.0` and `1e0` are three different numbers.
///
/// Integers that fit in `Int64` are stored without a heap allocation.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral
{
    /// Invariant: `.text` never holds the canonical decimal spelling of an `Int64` (that is `.int`), so that
    /// synthesized equality and hashing match equality of the literal text.
    enum Storage: Hashable, Sendable {
        case int(Int64)
        case text(String)
    }

    let storage: Storage

    /// Creates the number written as the decimal digits of `value`.
    public init(_ value: Int64) {
        storage = .int(value)
    }

    /// Creates the number written as the decimal digits of `value`.
    public init(_ value: Int) {
        storage = .int(Int64(value))
    }

    /// Creates the number written as the decimal digits of `value`, exactly, even above `Int64.max`.
    public init(_ value: UInt64) {
        if value <= UInt64(Int64.max) {
            storage = .int(Int64(value))
        } else {
            storage = .text(String(value))
        }
    }

    /// Creates the number written as the shortest text that reads back as `value`; `nil` for NaN or infinity.
    ///
    /// The text is Swift's `description` of the value, which is valid JSON: `0.1`, `100.0`, `-0.0`, `1e-07`,
    /// `9.007199254740992e+15`.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        self.init(validatedLiteral: value.description)
    }

    /// Creates the number written as the shortest text that reads back as the `Float` `value` (`0.1`, not
    /// `0.10000000149011612`); `nil` for NaN or infinity.
    public init?(_ value: Float) {
        guard value.isFinite else { return nil }
        self.init(validatedLiteral: value.description)
    }

    /// Creates a number from JSON number text such as `-12.5e3`; `nil` when `literal` is not exactly one
    /// RFC 8259 number (no leading `+`, no leading zeros, no surrounding spaces, no `NaN` or `Infinity`).
    public init?(literal: String) {
        guard JSONNumber.isValidLiteral(literal.utf8) else { return nil }
        self.init(validatedLiteral: literal)
    }

    /// Creates the number `value`.
    public init(integerLiteral value: Int64) {
        storage = .int(value)
    }

    /// Creates the number written as the shortest text for `value`, which must be finite.
    public init(floatLiteral value: Double) {
        precondition(value.isFinite, "a JSON number must be finite")
        self.init(validatedLiteral: value.description)
    }

    /// Wraps text already known to be a valid JSON number, keeping the storage invariant.
    init(validatedLiteral text: String) {
        if let value = JSONNumber.canonicalInt64(text) {
            storage = .int(value)
        } else {
            storage = .text(text)
        }
    }

    /// Wraps an integer the parser has already computed.
    init(parsedInt value: Int64) {
        storage = .int(value)
    }

    /// The exact JSON text of this number, as it is written.
    public var literal: String {
        switch storage {
        case .int(let value): return String(value)
        case .text(let text): return text
        }
    }

    /// The JSON text of this number.
    public var description: String { literal }

    /// Whether the literal is written without a fraction or exponent (`12`, `-3`; not `12.0` or `1e2`).
    package var isIntegerLiteral: Bool {
        switch storage {
        case .int: return true
        case .text(let text):
            return !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
        }
    }

    /// The value as an `Int64` when it is exactly an integer in range (`1e2` gives 100); `nil` otherwise.
    public var int64Value: Int64? {
        switch storage {
        case .int(let value):
            return value
        case .text(let text):
            guard let (negative, magnitude) = JSONNumber.exactInteger(text) else { return nil }
            if negative {
                if magnitude <= UInt64(Int64.max) { return -Int64(magnitude) }
                return magnitude == UInt64(Int64.max) + 1 ? Int64.min : nil
            }
            return Int64(exactly: magnitude)
        }
    }

    /// The value as a `UInt64` when it is exactly a non-negative integer in range; `nil` otherwise
    /// (`-0` gives 0).
    public var uint64Value: UInt64? {
        switch storage {
        case .int(let value):
            return UInt64(exactly: value)
        case .text(let text):
            guard let (negative, magnitude) = JSONNumber.exactInteger(text) else { return nil }
            return negative && magnitude != 0 ? nil : magnitude
        }
    }

    /// The value rounded to the nearest `Double`; `nil` only when it is too large for a finite `Double`.
    ///
    /// Rounding is silent: `13406746729185767` gives `13406746729185768.0`. Use `int64Value` for integers.
    public var doubleValue: Double? {
        let value: Double?
        switch storage {
        case .int(let int): value = Double(int)
        case .text(let text): value = Double(text)
        }
        guard let value, value.isFinite else { return nil }
        return value
    }

    // MARK: - Literal helpers

    /// The `Int64` whose `String(_:)` spelling is exactly `text`, if there is one (so not `-0`, `007`, `1e2`).
    static func canonicalInt64(_ text: String) -> Int64? {
        let utf8 = text.utf8
        guard utf8.count <= 20, let first = utf8.first else { return nil }
        if first == UInt8(ascii: "-") && utf8.count == 2 && utf8.last == UInt8(ascii: "0") { return nil }
        let isIntegerText = utf8.allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-")
        }
        guard isIntegerText else { return nil }
        guard let value = Int64(text), String(value) == text else { return nil }
        return value
    }

    /// Whether `bytes` is exactly one JSON number per RFC 8259 section 6.
    static func isValidLiteral(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var current = iterator.next()
        func advance() { current = iterator.next() }
        func atDigit() -> Bool {
            guard let c = current else { return false }
            return c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")
        }
        if current == UInt8(ascii: "-") { advance() }
        guard atDigit() else { return false }
        if current == UInt8(ascii: "0") {
            advance()
        } else {
            while atDigit() { advance() }
        }
        if current == UInt8(ascii: ".") {
            advance()
            guard atDigit() else { return false }
            while atDigit() { advance() }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            advance()
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { advance() }
            guard atDigit() else { return false }
            while atDigit() { advance() }
        }
        return current == nil
    }

    /// Sign and magnitude of a valid literal when its value is exactly an integer below 2^64.
    static func exactInteger(_ text: String) -> (negative: Bool, magnitude: UInt64)? {
        var negative = false
        var digits: [UInt8] = []
        var exponent = 0
        var exponentValue = 0
        var exponentNegative = false
        var part = 0  // 0: integer part, 1: fraction, 2: exponent
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-"):
                if part == 2 { exponentNegative = true } else { negative = true }
            case UInt8(ascii: "+"):
                break
            case UInt8(ascii: "."):
                part = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                part = 2
            default:
                let digit = Int(byte &- UInt8(ascii: "0"))
                if part == 2 {
                    // Saturate: anything this large is far outside UInt64 or is zero.
                    exponentValue = min(exponentValue * 10 + digit, 100_000)
                } else {
                    if digit != 0 || !digits.isEmpty { digits.append(UInt8(digit)) }
                    if part == 1 { exponent -= 1 }
                }
            }
        }
        exponent += exponentNegative ? -exponentValue : exponentValue
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { return (negative, 0) }
        guard exponent >= 0, digits.count + exponent <= 20 else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits + [UInt8](repeating: 0, count: exponent) {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            if overflow1 || overflow2 { return nil }
            magnitude = sum
        }
        return (negative, magnitude)
    }
}
