import Testing
@testable import PNCryptJSON

@Suite("JSONNumber")
struct JSONNumberTests {
    @Test("JSON numbers from integers keep every digit")
    func integerInits() {
        #expect(JSONNumber(Int64.min).literal == "-9223372036854775808")
        #expect(JSONNumber(Int64.max).literal == "9223372036854775807")
        #expect(JSONNumber(UInt64.max).literal == "18446744073709551615")
        #expect(JSONNumber(UInt64.max).uint64Value == UInt64.max)
        #expect(JSONNumber(UInt64.max).int64Value == nil)
        #expect(JSONNumber(-5).literal == "-5")
        #expect(JSONNumber(13_406_746_729_185_766 as Int64).literal == "13406746729185766")
        let literal: JSONNumber = 42
        #expect(literal == JSONNumber(42))
        #expect(JSONNumber(UInt64(42)) == JSONNumber(Int64(42)))
        #expect(JSONNumber(UInt64(42)).hashValue == JSONNumber(Int64(42)).hashValue)
    }

    @Test("JSON numbers from Double use the shortest round-trip text and refuse non-finite values")
    func doubleInits() {
        #expect(JSONNumber(0.1 as Double)?.literal == "0.1")
        #expect(JSONNumber(100.0 as Double)?.literal == "100.0")
        #expect(JSONNumber(-0.0 as Double)?.literal == "-0.0")
        #expect(JSONNumber(1e-7 as Double)?.literal == "1e-07")
        #expect(JSONNumber(Double.leastNonzeroMagnitude)?.literal == "5e-324")
        #expect(JSONNumber(Double.greatestFiniteMagnitude)?.doubleValue == Double.greatestFiniteMagnitude)
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(Double.infinity) == nil)
        #expect(JSONNumber(-Double.infinity) == nil)
        #expect(JSONNumber(Float(0.1))?.literal == "0.1")
        #expect(JSONNumber(Float.nan) == nil)
        let float: JSONNumber = 2.5
        #expect(float.literal == "2.5")
        for double in [0.1, 1.0 / 3.0, 123456.789, 1e300, -2.5e-300, 9007199254740993.0] {
            let number = JSONNumber(double)
            #expect(number.map { JSONNumber.isValidLiteral($0.literal.utf8) } == true)
            #expect(number?.doubleValue == double)
        }
    }

    @Test("JSON number literals are validated like the parser does")
    func literalValidation() {
        for valid in ["0", "-0", "1", "-1", "10", "1.5", "-0.0", "1e5", "1E+5", "1e-05", "12.34e56",
                      "1180591620717411303424"] {
            #expect(JSONNumber(literal: valid)?.literal == valid, "\(valid)")
        }
        for invalid in ["", "-", "+1", "01", "-01", "1.", ".5", "1e", "1e+", "0x10", " 1", "1 ", "NaN", "Infinity",
                        "1.5.5", "--1", "1e5e5", "١"] {
            #expect(JSONNumber(literal: invalid) == nil, "\(invalid)")
        }
    }

    @Test("JSON number exact integer accessors")
    func integerAccessors() {
        func number(_ text: String) -> JSONNumber { JSONNumber(literal: text)! }
        #expect(number("13406746729185766").int64Value == 13_406_746_729_185_766)
        #expect(number("13406746729185767").int64Value == 13_406_746_729_185_767)
        #expect(number("-9223372036854775808").int64Value == Int64.min)
        #expect(number("-9223372036854775809").int64Value == nil)
        #expect(number("9223372036854775808").int64Value == nil)
        #expect(number("9223372036854775808").uint64Value == 9_223_372_036_854_775_808)
        #expect(number("18446744073709551616").uint64Value == nil)
        #expect(number("1180591620717411303424").int64Value == nil)
        #expect(number("1e2").int64Value == 100)
        #expect(number("1.5e1").int64Value == 15)
        #expect(number("1500e-2").int64Value == 15)
        #expect(number("1.0").int64Value == 1)
        #expect(number("1.5").int64Value == nil)
        #expect(number("1e-2").int64Value == nil)
        #expect(number("1e999999999999999999999").int64Value == nil)
        #expect(number("0e999999999999").int64Value == 0)
        #expect(number("-0").int64Value == 0)
        #expect(number("-0").uint64Value == 0)
        #expect(number("-1").uint64Value == nil)
        #expect(number("-1.0").uint64Value == nil)
        #expect(number("12").isIntegerLiteral)
        #expect(number("-0").isIntegerLiteral)
        #expect(!number("12.0").isIntegerLiteral)
        #expect(!number("1E2").isIntegerLiteral)
    }

    @Test("JSON number doubleValue rounds to nearest and is nil only on overflow")
    func doubleAccessor() {
        #expect(JSONNumber(literal: "0.1")?.doubleValue == 0.1)
        #expect(JSONNumber(literal: "13406746729185767")?.doubleValue == 13406746729185768.0)
        #expect(JSONNumber(literal: "-0")?.doubleValue?.sign == .minus)
        #expect(JSONNumber(literal: "1e400")?.doubleValue == nil)
        #expect(JSONNumber(literal: "1e-400")?.doubleValue == 0)
        #expect(JSONNumber(7).doubleValue == 7)
    }

    @Test("JSON numbers compare by literal text")
    func equalityByText() {
        #expect(JSONNumber(literal: "1") == JSONNumber(1))
        #expect(JSONNumber(literal: "1.0") != JSONNumber(1))
        #expect(JSONNumber(literal: "1e0") != JSONNumber(literal: "1E0"))
        #expect(JSONNumber(literal: "-0") != JSONNumber(0))
        #expect(JSONNumber(literal: "9223372036854775807") == JSONNumber(Int64.max))
        #expect(JSONNumber(literal: "9223372036854775807")?.storage == .int(Int64.max))
        #expect(JSONNumber(1).description == "1")
    }
}
