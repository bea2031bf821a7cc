import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `--plaintext text` (issue 59, item 4) on messages the real PubNub Python SDK encrypted from a raw string (its
/// `module.encrypt(str)` with a str that is not JSON): the default (JSON) fails them as a wrong key does and
/// `diagnose` says why; `--plaintext text` delivers them as the JSON string the SDK hands its application, in one
/// message, line mode, `--field` and a history response; a wrong key still fails.
@Suite(.tags(.cli, .interop), .serialized, .notInQuickRun,
       .enabled(if: InteropSwitch.enabled, "interop skipped because PNCRYPT_SKIP_INTEROP=1"))
struct CLIPlaintextTextTests {
    static let key = "raw-string-key"
    static let raws = ["hello raw world", "héllo 漢語 😀 with \"quotes\" and a \\ backslash", "12 monkeys"]

    /// Each raw string in each scheme, as the SDK encrypts it: (scheme, raw string, Base64, what the SDK's
    /// subscribe path hands its application).
    static func sdkMessages() throws -> [(scheme: String, raw: String, base64: String, sdk: JSONValue)] {
        let peer = try PythonPeer.shared()
        var cases: [(String, String)] = []
        for scheme in ["legacy", "legacy-random-iv", "acrh"] {
            for raw in raws { cases.append((scheme, raw)) }
        }
        let sealed = try peer.batch(cases.map { ["op": "encrypt", "scheme": .string($0.0), "key": .string(key),
                                                 "text": .string($0.1)] })
        let base64 = try sealed.map { try #require($0["data_b64"]?.stringValue, "the SDK did not encrypt: \($0)") }
        let opened = try peer.batch(zip(cases, base64).map { item, text in
            ["op": "decrypt_message", "scheme": .string(item.0), "key": .string(key), "message": .string(text)]
        })
        return try zip(zip(cases, base64), opened).map { pair, reply in
            (pair.0.0, pair.0.1, pair.1, try #require(reply["value"], "the SDK did not decrypt: \(reply)"))
        }
    }

    @Test("one message: the default fails it, --plaintext text gives the SDK's string, diagnose says why")
    func oneMessage() throws {
        for message in try Self.sdkMessages() {
            let wire = "\"\(message.base64)\""
            let what = "\(message.scheme) \(message.raw)"
            // "12 monkeys" starts as a number: the SDK's json.loads fails on it too, and it hands the string.
            #expect(message.sdk == .string(message.raw), "\(what): the SDK gave \(message.sdk)")
            let json = try CLI.run(["message", "decrypt", "--key", Self.key, wire])
            #expect(json.status == 1 && json.stderr.contains("wrongKeyOrCorrupt"), "\(what): \(json.stderr)")
            let text = try CLI.run(["message", "decrypt", "--key", Self.key, "--plaintext", "text", wire])
            #expect(text.status == 0, "\(what): \(text.stderr)")
            #expect(try JSONValue(parsing: Array(text.stdout)) == message.sdk, "\(what): \(text.text)")
            let wrong = try CLI.run(["message", "decrypt", "--key", "another-key", "--plaintext", "text", wire])
            #expect(wrong.status == 1 && wrong.stderr.contains("wrongKeyOrCorrupt"), "\(what)")
            let diagnosis = try CLI.run(["diagnose", "--key", Self.key, message.base64])
            #expect(diagnosis.text.contains("is UTF-8 but not JSON: give --plaintext text if the publisher"
                                            + " encrypted a raw string"), "\(what): \(diagnosis.text)")
        }
    }

    @Test("--lines, --field and a history response take --plaintext text; JSON plaintexts stay values")
    func bulk() throws {
        let messages = try Self.sdkMessages()
        let json = try CLI.run(["message", "encrypt", "--key", Self.key, #"{"a":[1,"b"]}"#])
        let sealedJSON = json.text.trimmingCharacters(in: .whitespacesAndNewlines)
        let lines = messages.map { "\"\($0.base64)\"" } + [sealedJSON]
        let expected = messages.map { $0.sdk.serialized() } + [Array(#"{"a":[1,"b"]}"#.utf8)]
        let run = try CLI.run(["message", "decrypt", "--key", Self.key, "--plaintext", "text", "--lines"],
                              stdin: Array((lines.joined(separator: "\n") + "\n").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == Array(expected.joined(separator: [0x0A])) + [0x0A])
        let strict = try CLI.run(["message", "decrypt", "--key", Self.key, "--lines", "--allow-failures"],
                                 stdin: Array((lines.joined(separator: "\n") + "\n").utf8))
        #expect(strict.stderr.contains("not decrypted \(messages.count)"), "\(strict.stderr)")
        let records = lines.map { #"{"channel":"ch","message":\#($0),"t":1}"# }
        let fields = try CLI.run(["message", "decrypt", "--key", Self.key, "--plaintext", "text", "--lines",
                                  "--field", "/message"], stdin: Array((records.joined(separator: "\n") + "\n").utf8))
        #expect(fields.status == 0, "\(fields.stderr)")
        let values = try fields.text.split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8))["message"] }
        #expect(values == expected.map { try? JSONValue(parsing: $0) })
        let history = "[[" + lines.joined(separator: ",") + "],1,2]"
        let response = try CLI.run(["history", "decrypt", "--key", Self.key, "--plaintext", "text", history])
        #expect(response.status == 0, "\(response.stderr)")
        let items = try JSONValue(parsing: Array(response.stdout))
        #expect(items[0] == .array(expected.map { try! JSONValue(parsing: $0) }), "\(response.text)")
    }
}
