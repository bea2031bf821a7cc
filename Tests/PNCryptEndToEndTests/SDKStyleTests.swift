import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptVectors
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `--style go|ruby|php|kotlin`: every case of Vectors/styles.json (made by the SDKs' own publish code, or around
/// it) through the Swift API and the CLI, the warnings, PHP's raw string form when reading, and diagnose naming the
/// serializer.
@Suite struct SDKStyleTests {
    static let vectors: [TestVector] = (try? Package.vectors("styles.json", as: TestVector.self)) ?? []

    static func style(_ vector: TestVector) throws -> JSONStyle {
        try #require(vector.style.flatMap(JSONStyle.init(rawValue:)))
    }

    @Test("styles.json has cases for go, ruby, php and kotlin, every escape class, number and container among them")
    func coverage() {
        for style in ["go", "ruby", "php", "kotlin"] {
            let names = Set(Self.vectors.filter { $0.style == style && $0.scheme == "legacy" }
                .map { $0.id.split(separator: "-").dropFirst(2).joined(separator: "-") })
            #expect(names.count >= 70, "\(style)")
            for name in ["string-controls", "string-astral", "string-line-separators", "string-html", "int-2p64",
                         "float-1e21", "float-1.5e-7", "object-empty", "array-empty", "object-key-order"] {
                #expect(names.contains(name), "\(style) \(name)")
            }
        }
        // Kotlin: Gson's escapes, null members, Java's Double.toString boundaries, under both schemes.
        let kotlin = Self.vectors.filter { $0.style == "kotlin" }
        for name in ["string-gson-html-safe-set", "string-non-ascii-and-separators", "object-null-members",
                     "array-nulls", "int-2p53-plus-1", "float-1e-3", "float-just-below-1e-3", "float-below-1e7",
                     "float-1e7", "float-min-subnormal", "float-subnormal-2"] {
            #expect(kotlin.contains { $0.id == "style-kotlin-\(name)" && $0.scheme == "legacy" }, "\(name)")
            #expect(kotlin.contains { $0.id == "style-kotlin-acrh-\(name)" && $0.scheme == "acrh" }, "\(name)")
        }
        #expect(kotlin.count == 2 * kotlin.filter { $0.scheme == "legacy" }.count)
    }

    @Test("the Swift API writes and publishes every case as the SDK does, and reads it back")
    func swiftAPI() throws {
        #expect(Self.vectors.count == 429)
        for vector in Self.vectors {
            let style = try Self.style(vector)
            let value = try JSONValue(parsing: try #require(vector.message))
            let plaintext = try #require(try vector.plaintextBytes())
            #expect(value.serialized(style: style) == plaintext, "\(vector.id)")
            let scheme = try #require(Scheme(rawValue: vector.scheme))
            let iv = scheme == .legacy ? nil : Hex.decode(try #require(vector.iv))
            let crypto = try MessageCrypto(cipherKey: vector.key, scheme: scheme, style: style)
            let published = try crypto.encrypt(value, iv: iv)
            #expect(published == .string(try #require(vector.ciphertext)), "\(vector.id)")
            #expect(try crypto.publishBody(value, iv: iv) == Array("\"\(vector.ciphertext!)\"".utf8),
                    "\(vector.id)")
            #expect(TestVectorChecker.check(vector) == nil, "\(vector.id)")
        }
    }

    @Test("message encrypt --style X --scheme S (--iv) prints each SDK's ciphertext for every case",
          .tags(.slow, .cli), .notInQuickRun)
    func cliSingle() throws {
        for vector in Self.vectors {
            let iv = vector.scheme == "legacy" ? [] : ["--iv", vector.iv!]
            let result = try CLI.run(["message", "encrypt", "--key", vector.key, "--scheme", vector.scheme]
                                     + iv + ["--style", vector.style!, "--", vector.message!])
            #expect(result.status == 0, "\(vector.id): \(result.stderr)")
            #expect(result.text == "\"\(vector.ciphertext!)\"\n", "\(vector.id)")
        }
    }

    @Test("message encrypt --lines --style X gives each SDK's ciphertext on every line")
    func cliLines() throws {
        for style in ["go", "ruby", "php", "kotlin"] {
            let cases = Self.vectors.filter { $0.style == style && $0.scheme == "legacy" }
            let input = cases.map { $0.message! }.joined(separator: "\n") + "\n"
            let result = try CLI.run(["message", "encrypt", "--lines", "--key", "enigma", "--scheme", "legacy",
                                      "--style", style], stdin: Array(input.utf8))
            #expect(result.status == 0, "\(style): \(result.stderr)")
            let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.map(String.init) == cases.map { "\"\($0.ciphertext!)\"" }, "\(style)")
        }
        // acrh: a fresh IV per line (no --iv with --lines), so each line decrypts to the SDK's plaintext.
        let acrh = Self.vectors.filter { $0.style == "kotlin" && $0.scheme == "acrh" }
        let input = acrh.map { $0.message! }.joined(separator: "\n") + "\n"
        let result = try CLI.run(["message", "encrypt", "--lines", "--key", "enigma", "--scheme", "acrh",
                                  "--style", "kotlin"], stdin: Array(input.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.text.split(separator: "\n").map { String($0.dropFirst().dropLast()) }
        #expect(lines.count == acrh.count)
        let module = try CryptoModule(cipherKey: "enigma")
        for (line, vector) in zip(lines, acrh) {
            #expect(try module.decryptBytes(line, reading: .only(.acrh)) == (try vector.plaintextBytes()),
                    "\(vector.id)")
        }
    }

    @Test("a style that changes the message warns on stderr; one that does not stays quiet")
    func warnings() throws {
        let astral = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy", "--style", "go",
                                  #""🙂""#])
        #expect(astral.status == 0)
        #expect(astral.stderr == "pncrypt: warning: the Go SDK writes 🙂 (U+1F642) as \\uf642, another character\n")
        let raw = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy", "--style", "php",
                               #""say \"hi\"""#])
        #expect(raw.stderr.contains("the PHP SDK publishes a string message unescaped"))
        let big = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy", "--style", "php",
                               "18446744073709551616"])
        #expect(big.stderr == "pncrypt: warning: the PHP SDK writes the number 18446744073709551616 as "
                + "1.8446744073709552e+19\n")
        let null = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy", "--style", "kotlin",
                                #"{"a":null,"b":[null,1e21]}"#])
        #expect(null.status == 0)
        #expect(null.stderr == "pncrypt: warning: the Kotlin/Java SDK drops the member \"a\": its value is null\n")
        for style in ["go", "ruby", "php", "kotlin"] {
            let quiet = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy", "--style", style,
                                     #"{"text":"héllo <b>","n":3.0,"tt":13406746729185766}"#])
            #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(style): \(quiet.stderr)")
        }
    }

    @Test("message encrypt --lines warns once for the messages a style changed, naming the first")
    func linesWarning() throws {
        let input = Array("\"plain\"\n\"🙂\"\n{\"k\":\"😀\"}\n\"x\"\n".utf8)
        let go = try CLI.run(["message", "encrypt", "--lines", "--key", "enigma", "--scheme", "legacy", "--style",
                              "go"], stdin: input)
        #expect(go.status == 0)
        #expect(go.stderr == "pncrypt: warning: --style go changed 2 messages; the first, line 2: the Go SDK "
                + "writes 🙂 (U+1F642) as \\uf642, another character\n")
        let ruby = try CLI.run(["message", "encrypt", "--lines", "--key", "enigma", "--scheme", "legacy", "--style",
                                "ruby"], stdin: input)
        #expect(ruby.status == 0 && ruby.stderr.isEmpty)
        #expect(ruby.text.split(separator: "\n").count == 4)
        let kotlin = try CLI.run(["message", "encrypt", "--lines", "--key", "enigma", "--scheme", "legacy", "--style",
                                  "kotlin"], stdin: Array("[null]\n{\"a\":1}\n{\"b\":null}\n{\"c\":[null]}\n".utf8))
        #expect(kotlin.status == 0)
        #expect(kotlin.stderr == "pncrypt: warning: --style kotlin changed 1 message; the first, line 3: the "
                + "Kotlin/Java SDK drops the member \"b\": its value is null\n")
    }

    @Test("changes(in:) names each loss once, and nothing for the other styles")
    func changes() throws {
        let value = try JSONValue(
            parsing: #"{"a":"🙂","a":"🙂","n":0.30000000000000001,"k":12345678901234567890}"#)
        #expect(value.changes(in: .go) == [
            "the Go SDK keeps only the last value of the repeated key \"a\"",
            "the Go SDK writes 🙂 (U+1F642) as \\uf642, another character",
            "the Go SDK writes the number 0.30000000000000001 as 0.3",
        ])
        #expect(value.changes(in: .php).contains("the PHP SDK writes the number 12345678901234567890 as "
                                                 + "1.2345678901234567e+19"))
        #expect(value.changes(in: .ruby).count == 2)
        #expect(value.changes(in: .kotlin) == [
            "the Kotlin/Java SDK keeps only the last value of the repeated key \"a\"",
            "the Kotlin/Java SDK writes the number 0.30000000000000001 as 0.3",
        ])
        // Gson drops a member whose (last) value is null, at any depth; a null in an array stays.
        let nulls = try JSONValue(parsing: #"{"a":null,"b":{"c":null,"d":[null]},"e":1,"e":null}"#)
        #expect(nulls.changes(in: .kotlin) == [
            "the Kotlin/Java SDK keeps only the last value of the repeated key \"e\"",
            "the Kotlin/Java SDK drops the member \"a\": its value is null",
            "the Kotlin/Java SDK drops the member \"e\": its value is null",
            "the Kotlin/Java SDK drops the member \"c\": its value is null",
        ])
        #expect(nulls.serializedString(style: .kotlin) == #"{"b":{"d":[null]}}"#)
        #expect(nulls.changes(in: .ruby).count == 1)
        #expect(value.changes(in: .compact).isEmpty && value.changes(in: .python).isEmpty)
        #expect(JSONValue.string("a\"b").changes(in: .php).count == 1)
        // Found by fuzzing: a number beyond a Double's range, which no SDK can publish, is kept as written.
        let huge = try JSONValue(parsing: "[1340674e3452,1e400,-2e999]")
        for style in [JSONStyle.go, .ruby, .php, .kotlin] {
            #expect(huge.serializedString(style: style) == "[1340674e3452,1e400,-2e999]")
            #expect(huge.changes(in: style).count == 3)
        }
        #expect(try JSONValue(parsing: "[1\(String(repeating: "0", count: 400))]").serializedString(style: .go)
                == "[1\(String(repeating: "0", count: 400))]")
        #expect(JSONValue.array(["a\"b"]).changes(in: .php).isEmpty)
    }

    /// Encrypts `plaintext` bytes as they are under legacy with `key` (what an SDK publishes, Base64).
    func sealed(_ plaintext: String, key: String = "enigma") throws -> String {
        try CryptoModule(cipherKey: key).encrypt(Array(plaintext.utf8), scheme: .legacy)
    }

    @Test("PHP's raw string form qualifies as a message when readings compete, and reads as the string")
    func phpRawStringReading() throws {
        let crypto = MessageCrypto(keys: try KeyRing(["other", "enigma"]), reading: .only(.legacy))
        for (raw, expected) in [("\"say \"hi\" \\ now\"", "say \"hi\" \\ now"), ("\"line\nnext\"", "line\nnext"),
                                ("\"\"\"", "\""), ("\"\\u00e9\"", "é")] {
            let received = crypto.decrypt(.string(try sealed(raw)), policy: .marker)
            #expect(received.status == nil, "\(raw)")
            #expect(received.message == .string(expected), "\(raw)")
            #expect(received.keyIndex == 1)
        }
        // Text that is neither JSON nor between quotes still does not qualify against another reading.
        let plain = crypto.decrypt(.string(try sealed("not json")), policy: .marker)
        #expect(plain.status != nil)
        let cli = try CLI.run(["message", "decrypt", "-k", "other", "-k", "enigma", "--scheme", "legacy",
                               "\"\(try sealed("\"a\"b\""))\""])
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(cli.text == "\"a\\\"b\"\n")
    }

    @Test("diagnose names the serializers that write the plaintext, and PHP's depad when it explains a reading")
    func diagnoseNaming() throws {
        func findings(_ base64: String) throws -> [String] {
            Diagnosis(text: Array(base64.utf8), keys: [try CipherKey("enigma")]).findings
        }
        let go = try #require(Self.vectors.first { $0.id == "style-go-object-escaped-keys" })
        #expect(try findings(go.ciphertext!).contains(
            "written as by the Go SDK (HTML escapes and 16-bit \\u escapes, sorted keys)"))
        let php = try #require(Self.vectors.first { $0.id == "style-php-string-quotes-backslash" })
        let phpFindings = try findings(php.ciphertext!)
        #expect(phpFindings.contains { $0.contains("the PHP SDK's form of a string message") })
        #expect(phpFindings.contains { $0.hasPrefix("written as by the PHP SDK") })
        let doublePadded = try findings(try sealed("{\"a\":1}\u{5}\u{5}\u{5}"))
        #expect(doublePadded.contains { $0.hasPrefix("the plaintext ends with 3 bytes of 0x5 after a message")
            && $0.contains("PaddingTrait::depad") })
        // Only Gson writes non-ASCII raw with U+2028 and U+2029 escaped.
        let kotlin = try #require(Self.vectors.first { $0.id == "style-kotlin-string-non-ascii-and-separators" })
        #expect(try findings(kotlin.ciphertext!).contains(
            "written as by the Kotlin/Java SDK (Gson: raw UTF-8 but \\u2028 \\u2029, null members dropped, "
                + "Java doubles)"))
        let json = Diagnosis(text: Array(go.ciphertext!.utf8), keys: [try CipherKey("enigma")]).json
        #expect(json["attempts"]?[0]?["styles"] == ["go"])
        let cli = try CLI.run(["diagnose", "--key", "enigma", "--legacy-scheme", "legacy", go.ciphertext!])
        #expect(cli.text.contains("written as by the Go SDK"))
        let inspect = try CLI.run(["inspect", "--key", "enigma", go.ciphertext!])
        #expect(inspect.text.contains("plaintext: not gzip; written as by the Go SDK"))
    }
}
