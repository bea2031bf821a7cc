import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `--field POINTER` on `message encrypt`, `decrypt` and `rekey` (single and `--lines`), over a record export whose
/// messages the real PubNub Python SDK encrypted (legacy fixed IV, legacy random IV, acrh): every byte but the
/// field's is kept, the field decrypts to what the SDK encrypted, and the SDK decrypts what pncrypt wrote.
@Suite(.tags(.cli, .interop), .serialized, .notInQuickRun,
       .enabled(if: InteropSwitch.enabled, "interop skipped because PNCRYPT_SKIP_INTEROP=1"))
struct CLIFieldTests {
    static let key = "record-export-key"
    static let schemes = ["legacy", "legacy-random-iv", "acrh"]
    /// Message texts as the SDK encrypts them (its message path, `module.encrypt(str)`), written as pncrypt's
    /// compact style writes them: strings, unicode, numbers spelled as received (1.10, 1e400, beyond 64 bits),
    /// nesting.
    static let plaintexts = [
        #""Hello World""#,
        #"{"text":"héllo 漢語 😀 \"q\"","n":1.10}"#,
        #"[1e400,-0.5,{"nested":{"deep":[true,null,"\u0001"]}}]"#,
        "12345678901234567890",
    ]
    /// Records around a message (`%@`: the field's JSON text), with odd spacing, key orders and escapes.
    static let shapes = [
        #"{"channel":"ch","message":%@,"timetoken":"17000000000000000","publisher":"u"}"#,
        #"{ "timetoken" : 17000000000000001 ,  "message" :   %@ ,"meta":{"a":[1.10,1e400]} }"#,
        #"{"publisher":"\u00e9\/x","message":%@}"#,
    ]
    static let missing = #"{"channel":"ch","text":"no message here","timetoken":"17000000000000002"}"#

    /// One record of the export: its line, and that line with the field decrypted (compact).
    struct Record {
        var line: String
        var decrypted: String
        var plaintext: String
        var scheme: String
    }

    /// The export: every plaintext in every scheme, each in one of the shapes, encrypted by the SDK; the record
    /// without a field is line 3.
    static func export() throws -> [Record?] {
        let peer = try PythonPeer.shared()
        var requests: [JSONValue] = []
        var cases: [(String, String)] = []
        for scheme in schemes {
            for plaintext in plaintexts {
                requests.append(["op": "encrypt", "scheme": .string(scheme), "key": .string(key),
                                 "text": .string(plaintext)])
                cases.append((scheme, plaintext))
            }
        }
        let replies = try peer.batch(requests)
        var records: [Record?] = []
        for (index, (reply, (scheme, plaintext))) in zip(replies, cases).enumerated() {
            let base64 = try #require(reply["data_b64"]?.stringValue, "the SDK did not encrypt: \(reply)")
            let shape = shapes[index % shapes.count]
            records.append(Record(line: shape.replacingOccurrences(of: "%@", with: "\"\(base64)\""),
                                  decrypted: shape.replacingOccurrences(of: "%@", with: plaintext),
                                  plaintext: plaintext, scheme: scheme))
            if records.count == 2 { records.append(nil) }
        }
        return records
    }

    static func lines(_ records: [Record?], _ text: (Record) -> String) -> String {
        records.map { $0.map(text) ?? missing }.joined(separator: "\n") + "\n"
    }

    /// The field's text in `line` (a record of `shapes`) and the bytes before and after it.
    static func split(_ line: String) throws -> (before: String, field: String, after: String) {
        let bytes = Array(line.utf8)
        let range = try JSONPointer("/message").range(in: bytes)
        return (String(decoding: bytes[..<range.lowerBound], as: UTF8.self),
                String(decoding: bytes[range], as: UTF8.self),
                String(decoding: bytes[range.upperBound...], as: UTF8.self))
    }

    /// The SDK's plaintext bytes of a Base64 field encrypted under `key` in `scheme`.
    static func sdkPlaintexts(_ fields: [(scheme: String, key: String, field: String)]) throws -> [String] {
        let replies = try PythonPeer.shared().batch(fields.map { item in
            let base64: String = (try? JSONValue(parsing: item.field))?.stringValue ?? ""
            return ["op": "decrypt", "scheme": .string(item.scheme), "key": .string(item.key),
                    "data_b64": .string(base64)]
        })
        return try replies.map { reply in
            let data = try #require(reply["data_b64"]?.stringValue, "the SDK did not decrypt: \(reply)")
            return String(decoding: try Base64.decode(data), as: UTF8.self)
        }
    }

    @Test("decrypt --lines --field: each field decrypted to what the SDK encrypted, every other byte kept")
    func decryptLines() throws {
        let records = try Self.export()
        let input = Self.lines(records, \.line)
        let run = try CLI.run(["message", "decrypt", "--key", Self.key, "--lines", "--field", "/message"],
                              stdin: Array(input.utf8))
        #expect(run.text == Self.lines(records, \.decrypted))
        #expect(run.status == 1)
        let statuses = run.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(statuses.count == 1)
        #expect(statuses.first?.contains(#""line":3"#) == true)
        #expect(statuses.first?.contains(#"no field \"/message\""#) == true)
        #expect(run.stderr.contains("1 of 13 lines not decrypted"))
        let allowed = try CLI.run(["message", "decrypt", "--key", Self.key, "--lines", "--field", "/message",
                                   "--allow-failures"], stdin: Array(input.utf8))
        #expect(allowed.status == 0 && allowed.text == run.text)
        #expect(allowed.stderr.contains(#""line":3"#))
    }

    @Test("decrypt --field keeps a field it cannot decrypt as it was, with its status; the marker when asked")
    func decryptKeepsWhatFails() throws {
        let records = try Self.export().compactMap { $0 }
        // A field never encrypted, an SDK ciphertext damaged (a middle character changed), and SDK records read
        // with another key: none may lose its value by default.
        let sdk = try Self.split(records[0].line).field
        var damaged = Array(sdk.utf8)
        damaged[damaged.count / 2] = damaged[damaged.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B")
            : UInt8(ascii: "A")
        let lines = [#"{"channel":"ch","message":"a plain note","timetoken":"1"}"#,
                     #"{"channel":"ch","message":{"text":"never encrypted"}}"#,
                     records[0].line.replacingOccurrences(of: sdk, with: String(decoding: damaged, as: UTF8.self))]
        for line in lines {
            let kept = try CLI.run(["message", "decrypt", "--key", Self.key, "--field", "/message", line])
            #expect(kept.status == 1 && kept.text == line + "\n", "\(line): \(kept.stderr)")
            #expect(kept.stderr.contains(#""category":"decryption""#), "\(line): \(kept.stderr)")
            let marked = try CLI.run(["message", "decrypt", "--key", Self.key, "--field", "/message",
                                      "--on-error", "marker", line])
            #expect(marked.status == 1 && marked.text.contains(#""message":"DECRYPTION_ERROR""#), "\(line)")
        }
        let input = lines.joined(separator: "\n") + "\n" + Self.lines(records, \.line)
        let wrong = try CLI.run(["message", "decrypt", "--key", "another-key", "--lines", "--field", "/message"],
                                stdin: Array(input.utf8))
        #expect(wrong.status == 1 && wrong.text == input)
        #expect(!wrong.text.contains("DECRYPTION_ERROR"))
        #expect(wrong.stderr.contains("\(lines.count + records.count) of \(lines.count + records.count) lines not"))
        let marked = try CLI.run(["message", "decrypt", "--key", "another-key", "--lines", "--field", "/message",
                                  "--on-error", "marker"], stdin: Array(input.utf8))
        #expect(marked.text.split(separator: "\n").allSatisfy { $0.contains(#""DECRYPTION_ERROR""#) })
        // A whole message keeps the iOS marker by default.
        let whole = try CLI.run(["message", "decrypt", "--key", "another-key", "--allow-failures", sdk])
        #expect(whole.status == 0 && whole.text == "\"DECRYPTION_ERROR\"\n")
    }

    @Test("decrypt --field without --lines: one record; a record without the field is an error naming it")
    func decryptSingle() throws {
        for record in try Self.export().compactMap({ $0 }) {
            let run = try CLI.run(["message", "decrypt", "--key", Self.key, "--field", "/message", record.line])
            #expect(run.status == 0 && run.text == record.decrypted + "\n", "\(record.scheme) \(record.plaintext)")
        }
        let run = try CLI.run(["message", "decrypt", "--key", Self.key, "--field", "/message"],
                              stdin: Array(Self.missing.utf8))
        #expect(run.status == 65 && run.stdout.isEmpty)
        #expect(run.stderr.contains(#"no field "/message""#))
    }

    @Test("encrypt --field: the SDK decrypts each field to the message, every other byte kept",
          arguments: CLIFieldTests.schemes)
    func encrypt(scheme: String) throws {
        let records = try Self.export()
        let input = Self.lines(records, \.decrypted)
        let run = try CLI.run(["message", "encrypt", "--key", Self.key, "--scheme", scheme, "--lines", "--field",
                               "/message"], stdin: Array(input.utf8))
        #expect(run.status == 1 && run.stderr.contains(#""line":3"#) && run.stderr.contains(#"\"/message\""#))
        let output = run.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(output.count == records.count + 1 && output[2].isEmpty && output.last == "")
        var fields: [(scheme: String, key: String, field: String)] = []
        var expected: [String] = []
        for (line, record) in zip(output, records) {
            guard let record else { continue }
            let (before, field, after) = try Self.split(line)
            let (inBefore, _, inAfter) = try Self.split(record.decrypted)
            #expect(before == inBefore && after == inAfter)
            fields.append((scheme, Self.key, field))
            expected.append(record.plaintext)
        }
        // One record without --lines, exactly as given (--verbatim).
        let single = try #require(records[0])
        let one = try CLI.run(["message", "encrypt", "--key", Self.key, "--scheme", scheme, "--field", "/message",
                               "--verbatim", single.decrypted])
        #expect(one.status == 0)
        let (before, field, after) = try Self.split(String(one.text.dropLast()))
        #expect(before + "%@" + after == Self.shapes[0])
        fields.append((scheme, Self.key, field))
        expected.append(single.plaintext)
        #expect(try Self.sdkPlaintexts(fields) == expected)
    }

    @Test("rekey --field: fields moved to the new key, the SDK decrypts them, every other byte kept")
    func rekey() throws {
        let records = try Self.export()
        let input = Self.lines(records, \.line)
        let arguments = ["message", "rekey", "--key", Self.key, "--to-key", "new-key", "--field", "/message"]
        let run = try CLI.run(arguments, stdin: Array(input.utf8))
        #expect(run.status == 1 && run.stderr.contains(#""line":3"#) && run.stderr.contains(#"\"/message\""#))
        #expect(run.stderr.contains("rekeyed 12, unchanged 1"))
        let output = run.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(output.count == records.count + 1 && output[2] == Self.missing)
        var fields: [(scheme: String, key: String, field: String)] = []
        for (line, record) in zip(output, records) {
            guard let record else { continue }
            let (before, field, after) = try Self.split(line)
            let (inBefore, _, inAfter) = try Self.split(record.line)
            #expect(before == inBefore && after == inAfter)
            fields.append(("acrh", "new-key", field))
        }
        #expect(try Self.sdkPlaintexts(fields) == records.compactMap { $0?.plaintext })
        let allowed = try CLI.run(arguments + ["--allow-failures"], stdin: Array(input.utf8))
        #expect(allowed.status == 0)
        // Again: every field is already new.
        let again = try CLI.run(["message", "rekey", "--key", "new-key", "--to-key", "new-key", "--field",
                                 "/message"], stdin: Array(String(run.text).utf8))
        #expect(again.stderr.contains("rekeyed 0, unchanged 1 (not decryptable), already new 12"))
        #expect(again.text == run.text)
    }

    @Test("an invalid pointer is a usage error saying what a pointer looks like",
          arguments: [["message", "decrypt", "--key", "k"], ["message", "encrypt", "--key", "k"],
                      ["message", "rekey", "--key", "k", "--to-key", "n"]])
    func invalidPointer(command: [String]) throws {
        for pointer in ["message", "/a~2"] {
            let run = try CLI.run(command + ["--field", pointer], stdin: Array("{}\n".utf8))
            #expect(run.status == 64 && run.stdout.isEmpty)
            #expect(run.stderr.contains("a JSON Pointer (RFC 6901)"))
        }
    }
}
