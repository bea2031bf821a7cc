import Foundation
import Testing
import PNCryptJSON
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// An archive that mixes iOS 3.3 messages with the real Python SDK's (pubnub==10.8.0): one pass with
/// `--scheme auto,legacy33` (issue 59, item 7), where each scheme alone fails the other's lines.
@Suite struct ReadListInteropTests {
    /// What the archive holds: the wire message of each line and the message it must give.
    static func archive() throws -> [(wire: String, message: JSONValue)] {
        let (peer, seed) = try Interop.setup()
        let messages: [JSONValue] = [["text": "hello from the Python SDK", "n": 1], "a plain string", [1, 2.5, "três"],
                                     ["nested": ["ok": true, "none": nil]]]
        var requests: [JSONValue] = []
        for scheme in ["acrh", "legacy", "legacy-random-iv"] {
            for message in messages {
                requests.append(["op": "publish_payload", "scheme": .string(scheme), "key": "enigma",
                                 "message": message])
            }
        }
        let replies = try Interop.batch(peer, requests, seed: seed, test: "read list archive")
        var lines: [(wire: String, message: JSONValue)] = []
        for (reply, request) in zip(replies, requests) {
            lines.append((try #require(reply["payload"]?.stringValue, "\(reply)"), request["message"]!))
        }
        // iOS 3.3 (pubnub/objective-c v3.4.3's vectors, spec.json): a string leaf, and leaves in an array and an
        // object, put between the SDK's lines.
        let ios33 = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        let old: [JSONValue] = ["Hello World", ["seven", "eight", ["food": "Cheeseburger", "drink": "Coffee"]],
                                ["text": "from iOS 3.3"]]
        for (i, message) in old.enumerated() {
            lines.insert((try ios33.encrypt(message).serializedString(), message), at: 1 + i * 4)
        }
        return lines
    }

    @Test("one pass with --scheme auto,legacy33 decrypts every line and record; each scheme alone fails the others",
          .tags(.interop, .cli), .notInQuickRun)
    func mixedArchive() throws {
        let lines = try Self.archive()
        let input = Array(lines.map(\.wire).joined(separator: "\n").utf8) + [10]
        let both = try CLI.run(["message", "decrypt", "--lines", "--key", "enigma", "--scheme", "auto,legacy33"],
                               stdin: input)
        #expect(both.status == 0, "\(both.stderr)")
        let out = both.stdout.split(separator: UInt8(ascii: "\n"))
        #expect(out.count == lines.count)
        for (line, expected) in zip(out, lines) {
            #expect(try JSONValue(parsing: Array(line)) == expected.message)
        }
        // A record export of the same messages, --field /message: every record decrypted in place.
        let records = lines.enumerated().map { (i, line) in
            #"{"channel":"ch","message":\#(line.wire),"timetoken":"1700000000\#(i)"}"#
        }
        let export = Array((records.joined(separator: "\n") + "\n").utf8)
        let fielded = try CLI.run(["message", "decrypt", "--lines", "--field", "/message", "--key", "enigma",
                                   "--scheme", "auto,legacy33"], stdin: export)
        #expect(fielded.status == 0, "\(fielded.stderr)")
        let recordsOut = fielded.stdout.split(separator: UInt8(ascii: "\n"))
        #expect(recordsOut.count == lines.count)
        for (line, expected) in zip(recordsOut, lines) {
            #expect(try JSONValue(parsing: Array(line))["message"] == expected.message)
        }
        // Alone, legacy33 fails today's lines as before (the acrh ones: not whole blocks), and auto the iOS 3.3 ones.
        let ios33Only = try CLI.run(["message", "decrypt", "--lines", "--key", "enigma", "--scheme", "legacy33"],
                                    stdin: input)
        #expect(ios33Only.status != 0)
        #expect(ios33Only.stderr.contains("not a whole number"), "\(ios33Only.stderr)")
        let autoOnly = try CLI.run(["message", "decrypt", "--lines", "--key", "enigma"], stdin: input)
        #expect(autoOnly.status != 0)
    }
}
