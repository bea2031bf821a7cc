import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `MessageStatus`, the one status type, and its one JSON form (docs/formats.md section 4.2): a message that is
/// not decrypted gives the same status JSON from `MessageCrypto`, a history, line mode and the command line (but
/// for `line` or `index`).
@Suite struct MessageStatusTests {
    /// A legacy message under key "enigma": with key "wrong" it is the one public decryption failure.
    static let received: JSONValue = "06UDjczkvAAYcqWfNwkOiQ=="

    /// The JSON object without `key`.
    static func without(_ key: String, _ value: JSONValue?) -> JSONValue? {
        guard case .object(let object) = value else { return nil }
        return .object(JSONObject(object.filter { $0.key != key }.map { ($0.key, $0.value) }))
    }

    @Test("one message, one history item and one line give the same status JSON")
    func oneForm() throws {
        let crypto = try MessageCrypto(cipherKey: "wrong", scheme: .legacy, reading: .only(.legacy))
        let single = try #require(crypto.decrypt(Self.received, policy: .passThrough).status)
        #expect(single.json.serializedString() == #"{"category":"decryption","reason":"wrongKeyOrCorrupt","#
            + #""message":"\#(CryptoModule.decryptionFailed.message)","original":"06UDjczkvAAYcqWfNwkOiQ=="}"#)

        // 42 passes through, with its own status (notEncrypted: issue 55), first.
        let history = try HistoryResponse([[42, Self.received], 1, 2])
        let statuses = crypto.decrypt(history: history, policy: .passThrough).statuses
        #expect(statuses.map(\.reason) == [.notEncrypted, .wrongKeyOrCorrupt])
        let item = try #require(statuses.last)
        #expect(item.json["index"] == 1)
        #expect(Self.without("index", item.json) == single.json)

        let lines = try MessageStream(.decrypt(crypto, policy: .passThrough))
            .run(Array("\"06UDjczkvAAYcqWfNwkOiQ==\"\n".utf8))
        let line = try #require(lines.statuses.first)
        #expect(line.json.serializedString().hasPrefix(#"{"line":1,"category":"decryption","#))
        #expect(Self.without("line", line.json) == single.json)
    }

    @Test("a line that is not JSON says its own category, json, in the same form")
    func lineCategory() throws {
        let crypto = try MessageCrypto(cipherKey: "wrong", scheme: .legacy, reading: .only(.legacy))
        let result = try MessageStream(.decrypt(crypto, policy: .marker)).run(Array("{\n".utf8))
        let status = try #require(result.statuses.first)
        #expect(status.json["category"] == "json" && status.json["reason"] == "invalidJSON")
        #expect(status.json["original"] == nil && status.category == .json)
    }

    @Test("the command line writes the same form for message decrypt and for --lines")
    func cliOneForm() throws {
        let single = try CLI.run(["message", "decrypt", "--key", "wrong", "--legacy-scheme", "legacy",
                                  "--on-error", "passthrough", "\"06UDjczkvAAYcqWfNwkOiQ==\""])
        let lines = try CLI.run(["message", "decrypt", "--lines", "--key", "wrong", "--legacy-scheme", "legacy",
                                 "--on-error", "passthrough"], stdin: Array("\"06UDjczkvAAYcqWfNwkOiQ==\"\n".utf8))
        let singleLine = try #require(single.stderr.split(separator: "\n").first { $0.hasPrefix("{") })
        let lineLine = try #require(lines.stderr.split(separator: "\n").first { $0.hasPrefix("{") })
        #expect(singleLine.hasPrefix(#"{"category":"decryption","reason":"wrongKeyOrCorrupt","#))
        #expect(lineLine == #"{"line":1,"# + singleLine.dropFirst())
    }
}
