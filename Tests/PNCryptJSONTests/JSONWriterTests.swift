import Foundation
import Testing
import PNCryptJSON
import PNCryptTestSupport

/// Corpus for the byte-for-byte comparison with Python's `json.dumps` and Node's `JSON.stringify`: one JSON text
/// per line. Numbers are spelled as both languages print them back (no `1.0`, no exponents).
private let sharedCorpus = #"""
"hello"
"é"
"漢語"
"caf\u00e9 \u6f22\u8a9e"
"\u00e9t\u00C9"
"😀"
"\ud83d\ude00 and \ud834\udd1e and 𝄞"
"\u007f\u0080\u00ff\u2028\u2029\ufeff\uffff\u0800\u07ff"
"quote \" backslash \\ slash / escaped slash \/"
"\b\f\n\r\t"
"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u000f"
"\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"
""
[]
{}
[[]]
[{}, [], "", [[{}]]]
{"a":{}}
{"a":[1,2,{"b":null,"c":[true,false]}],"d":"x"}
  { "spaced" : [ 1 , 2 ] , "out" : { } }  
{"ключ":"значение","k\"ey":"v\\al","\u2028":"x","😀":"😀","/":"\/"}
["seven","eight",{"food":"Cheeseburger","drink":"Coffee"}]
{"this stuff":{"can get":"complicated!"}}
[0,-1,1.5,-0.25,3.14159,100,123456.789,9007199254740991,-9007199254740991]
[true,false,null]
null
true
42
[["Pub1","Pub2","Pub3"],13406746729185766,13406746729185768]
{"message":{"text":"hi"},"timetoken":17000000000000000}
"""#

/// Corpus lines only Python prints back exactly: integers beyond 2^53, which JavaScript rounds.
private let pythonOnlyCorpus = #"""
[["Pub1","Pub2","Pub3"],13406746729185766,13406746780720711]
1180591620717411303424
-9223372036854775808
[9223372036854775807,18446744073709551615,18446744073709551616,-1180591620717411303424]
{"timetoken":13406746729185767,"big":[123456789012345678901234567890]}
"""#

/// Runs external reference implementations (Python, Node) over a file of JSON lines.
enum ReferenceTool {
    /// Runs `tool` with `arguments` and a temporary file holding `lines` (one per line) as the last argument;
    /// returns stdout split into lines of bytes. Fails the test when the tool is missing or fails.
    static func run(_ tool: String, _ arguments: [String], lines: [[UInt8]]) throws -> [[UInt8]] {
        let executable = try #require(
            findTool(tool), "\(tool) is not installed or not on PATH: the JSON cross-check needs it")
        return try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("lines.jsonl")
            var data = Data()
            for line in lines {
                data.append(contentsOf: line)
                data.append(0x0A)
            }
            try data.write(to: input)
            let run = try runProcess(executable, arguments + [input.path])
            try #require(run.status == 0, "\(tool) failed (\(run.status)): \(run.stderr)")
            var result = run.stdout.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
            if result.last?.isEmpty == true { result.removeLast() }
            return result
        }
    }

    static let pythonDumps = """
        import json, sys
        with open(sys.argv[1], encoding="utf-8") as f:
            for line in f:
                sys.stdout.write(json.dumps(json.loads(line)) + "\\n")
        """

    /// Mode `compact`: `JSON.stringify`; mode `ascii`: the same with every UTF-16 unit above 0x7F as `\\uXXXX`.
    static let nodeStringify = """
        const fs = require("fs");
        const [mode, file] = process.argv.slice(1);
        const lines = fs.readFileSync(file, "utf8").split("\\n").filter((l) => l.length > 0);
        const out = lines.map((l) => {
          const s = JSON.stringify(JSON.parse(l));
          if (mode !== "ascii") return s;
          return s.replace(/[\\u0080-\\uffff]/g, (c) => "\\\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
        });
        process.stdout.write(out.join("\\n") + "\\n");
        """
}

@Suite("JSONWriter")
struct JSONWriterTests {
    /// Lines of a corpus as bytes (blank lines dropped).
    private func lines(_ corpus: String) -> [[UInt8]] {
        corpus.split(separator: "\n").map { Array($0.utf8) }
    }

    /// Deterministic strings covering every escape class: ASCII, controls, U+007F, Latin-1, BMP, astral.
    private func generatedStrings() -> [[UInt8]] {
        var random = SeededRandom(seed: 0x9E37_79B9_7F4A_7C15)
        func next() -> UInt64 { random.next() }
        let ranges: [ClosedRange<UInt32>] = [
            0x00...0x1F, 0x20...0x7F, 0x20...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF,
        ]
        var result: [[UInt8]] = []
        for _ in 0..<300 {
            var string = ""
            for _ in 0..<Int(next() % 24) {
                let range = ranges[Int(next() % UInt64(ranges.count))]
                let value = range.lowerBound + UInt32(next() % UInt64(range.count))
                string.unicodeScalars.append(Unicode.Scalar(value)!)
            }
            var key = ""
            for _ in 0..<Int(next() % 6) {
                key.unicodeScalars.append(Unicode.Scalar(UInt32(0x61 + next() % 26))!)
            }
            // An object with a letter key (never an integer-like key: JavaScript would reorder those).
            let value: JSONValue = next() % 2 == 0 ? .string(string) : ["k\(key)": .string(string), "n": [nil]]
            result.append(value.serialized(style: .ascii))
        }
        return result
    }

    private func compare(style: JSONStyle, input: [[UInt8]], reference: [[UInt8]], tool: String) throws {
        try #require(reference.count == input.count, "\(tool) printed \(reference.count) lines for \(input.count)")
        for (line, expected) in zip(input, reference) {
            let value = try JSONValue(parsing: line)
            let ours = value.serialized(style: style)
            if ours != expected {
                Issue.record(
                    """
                    \(style) differs from \(tool) for \(String(decoding: line, as: UTF8.self)):
                    ours:   \(String(decoding: ours, as: UTF8.self))
                    \(tool): \(String(decoding: expected, as: UTF8.self))
                    """)
            }
        }
    }

    @Test("JSON python style matches python3 json.dumps byte for byte")
    func matchesPython() throws {
        let input = lines(sharedCorpus) + lines(pythonOnlyCorpus) + generatedStrings()
        let reference = try ReferenceTool.run("python3", ["-c", ReferenceTool.pythonDumps], lines: input)
        try compare(style: .python, input: input, reference: reference, tool: "python3")
    }

    /// Compares `style` with node's JSON.stringify in `mode` (`compact`, or `ascii`: non-ASCII escaped), named
    /// `tool` in a failure, on the shared corpus and the generated strings.
    private func compareWithNode(style: JSONStyle, mode: String, tool: String) throws {
        let input = lines(sharedCorpus) + generatedStrings()
        let reference = try ReferenceTool.run("node", ["-e", ReferenceTool.nodeStringify, "--", mode], lines: input)
        try compare(style: style, input: input, reference: reference, tool: tool)
    }

    @Test("JSON compact style matches node JSON.stringify byte for byte")
    func matchesNode() throws {
        try compareWithNode(style: .compact, mode: "compact", tool: "node")
    }

    @Test("JSON ascii style matches node JSON.stringify with non-ASCII escaped")
    func matchesNodeASCII() throws {
        try compareWithNode(style: .ascii, mode: "ascii", tool: "node (ascii)")
    }

    @Test("JSON apple style matches Foundation JSONSerialization for arrays of strings")
    func matchesFoundation() throws {
        let strings = [
            "a/b", "\u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1F}\u{7F}", "é漢😀\u{2028}", "\"\\", "//",
        ]
        let data = try JSONSerialization.data(withJSONObject: strings)
        let ours = JSONValue.array(strings.map { .string($0) }).serialized(style: .apple)
        #expect(ours == [UInt8](data), "\(String(decoding: ours, as: UTF8.self))")
    }

    @Test("JSON styles write the documented bytes")
    func styleBytes() throws {
        let value: JSONValue = ["a": [1, "é/\u{7F}😀\n\u{1}"], "b": [:], "c": [], "d": nil, "e": true]
        #expect(value.serializedString(style: .compact) == "{\"a\":[1,\"é/\u{7F}😀\\n\\u0001\"],\"b\":{},\"c\":[],"
                + "\"d\":null,\"e\":true}")
        #expect(value.serializedString(style: .apple) == "{\"a\":[1,\"é\\/\u{7F}😀\\n\\u0001\"],\"b\":{},\"c\":[],"
                + "\"d\":null,\"e\":true}")
        #expect(value.serializedString(style: .python) == #"{"a": [1, "\u00e9/\u007f\ud83d\ude00\n\u0001"], "b": {}, "#
                + #""c": [], "d": null, "e": true}"#)
        #expect(value.serializedString(style: .ascii) == "{\"a\":[1,\"\\u00e9/\u{7F}\\ud83d\\ude00\\n\\u0001\"],"
                + "\"b\":{},\"c\":[],\"d\":null,\"e\":true}")
        #expect(JSONValue.string("\u{1F}\u{1A}").serializedString() == #""\u001f\u001a""#)
        #expect(value.description == value.serializedString())
        #expect(JSONStyle(rawValue: "python") == .python)
        // The SDK styles (docs/sdk-styles.md): Go sorts keys, writes U+007F raw and 😀 as its low 16 bits; Ruby is
        // compact for these values; PHP escapes `/` and writes surrogate pairs.
        #expect(value.serializedString(style: .go) == "{\"a\":[1,\"\\u00e9/\u{7F}\\uf600\\n\\u0001\"],"
                    + "\"b\":{},\"c\":[],"
                + "\"d\":null,\"e\":true}")
        #expect(value.serializedString(style: .ruby) == value.serializedString(style: .compact))
        #expect(value.serializedString(style: .php) == "{\"a\":[1,\"\\u00e9\\/\u{7F}\\ud83d\\ude00\\n\\u0001\"],"
                + "\"b\":{},\"c\":[],\"d\":null,\"e\":true}")
        // Kotlin/Java (Gson): raw UTF-8 and U+007F, the null member dropped.
        #expect(value.serializedString(style: .kotlin) == "{\"a\":[1,\"é/\u{7F}😀\\n\\u0001\"],\"b\":{},\"c\":[],"
                + "\"e\":true}")
        #expect(JSONStyle.allCases.count == 8)
    }

    @Test("JSON writer writes integers exactly, including the extremes")
    func integers() {
        let values: [JSONValue] = [
            .number(JSONNumber(Int64.min)), .number(JSONNumber(Int64.max)), .number(JSONNumber(UInt64.max)),
            0, -1, .number(JSONNumber(13_406_746_729_185_766 as Int64)),
        ]
        #expect(JSONValue.array(values).serializedString()
                == "[-9223372036854775808,9223372036854775807,18446744073709551615,0,-1,13406746729185766]")
    }

    @Test("JSON writer output parses back to the same value in every style")
    func roundTrip() throws {
        for line in lines(sharedCorpus) + lines(pythonOnlyCorpus) + generatedStrings() {
            let value = try JSONValue(parsing: line)
            // The SDK styles rewrite numbers and some strings as their SDKs do: SDKStyleTests covers them.
            for style in JSONStyle.exactStyles {
                #expect(try JSONValue(parsing: value.serialized(style: style)) == value, "\(style)")
            }
        }
    }
}
