import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

@Suite(.tags(.cli)) struct CLIMessageTests {
    @Test("message encrypt prints the wire JSON")
    func encrypt() throws {
        let hello = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy", "\"Hello World\""])
        #expect(hello.status == 0)
        #expect(hello.text == "\"06UDjczkvAAYcqWfNwkOiQ==\"\n")
        let ios33 = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy33",
                                 #"["seven","eight",{"food":"Cheeseburger","drink":"Coffee"}]"#])
        #expect(ios33.text == #"["0ZRaiDryY0rdklgVVU80pQ==","Ti5YyHCCUEjg/op0Zm393w==","#
                + #"{"food":"zu9G3gtmiAxYLpehtuQngw==","drink":"vJYgOIZdbL4rRqdigAcujA=="}]"# + "\n")
        let escaped = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy", "--style", "ascii",
                                   "\"漢語\""])
        #expect(escaped.text == "\"+BY5/miAA8aeuhVl4d13Kg==\"\n")
        let leaf = try CLI.run(["message", "encrypt", "--key", "enigma", "--scheme", "legacy33",
                                #"["a",{"price":3}]"#])
        #expect(leaf.status == 1)
        #expect(leaf.stderr.contains("$[1].price is a number"))
    }

    @Test("message decrypt under marker, passthrough and fail")
    func decryptPolicies() throws {
        let ok = try CLI.run(["message", "decrypt", "--key", "enigma", "\"06UDjczkvAAYcqWfNwkOiQ==\""])
        #expect(ok.text == "\"Hello World\"\n")
        #expect(ok.stderr.isEmpty)
        let marker = try CLI.run(["message", "decrypt", "--key", "wrong", "--on-error", "marker",
                                  "\"06UDjczkvAAYcqWfNwkOiQ==\""])
        #expect(marker.status == 1)
        #expect(marker.text == "\"DECRYPTION_ERROR\"\n")
        #expect(marker.stderr.hasPrefix(#"{"category":"decryption","reason":"wrongKeyOrCorrupt""#))
        let passthrough = try CLI.run(["message", "decrypt", "--key", "wrong", "--on-error", "passthrough",
                                       "\"06UDjczkvAAYcqWfNwkOiQ==\""])
        #expect(passthrough.status == 1)
        #expect(passthrough.text == "\"06UDjczkvAAYcqWfNwkOiQ==\"\n")
        #expect(passthrough.stderr.contains(#""category":"decryption""#))
        let fail = try CLI.run(["message", "decrypt", "--key", "wrong", "--on-error", "fail",
                                "\"06UDjczkvAAYcqWfNwkOiQ==\""])
        #expect(fail.status == 1)
        #expect(fail.stdout.isEmpty)
        #expect(fail.stderr.contains(#""reason":"wrongKeyOrCorrupt""#))
    }

    @Test("input JSON that does not parse exits 65 with the offset")
    func invalidJSON() throws {
        let result = try CLI.run(["message", "decrypt", "--key", "enigma", #"{"a":"#])
        #expect(result.status == 65)
        #expect(result.stderr == "pncrypt: invalid JSON at offset 5: expected a JSON value, found end of input\n")
        let encrypt = try CLI.run(["message", "encrypt", "--key", "enigma", "[1,]"])
        #expect(encrypt.status == 65)
    }

    @Test("history decrypt handles a whole response, one status line per failure")
    func history() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let response = dir.appendingPathComponent("response.json")
        let text = #"[["06UDjczkvAAYcqWfNwkOiQ==","AAAAAAAAAAAAAAAAAAAAAA==",{"message":"06UDjczkvAAYcqWfNwkOiQ==","#
            + #""timetoken":13406746729185766}],13406746729185766,13406746780720711]"#
        try Data(text.utf8).write(to: response)
        let marker = try CLI.run(["history", "decrypt", "--key", "enigma", "--scheme", "legacy", "-i", response.path])
        #expect(marker.status == 1)
        #expect(marker.text == #"[["Hello World","DECRYPTION_ERROR",{"message":"Hello World","#
                + #""timetoken":13406746729185766}],13406746729185766,13406746780720711]"# + "\n")
        let lines = marker.stderr.split(separator: "\n")
        #expect(lines.count == 2 && lines.last?.hasPrefix("pncrypt: 1 of 3 messages not decrypted") == true)
        #expect(lines.first?.contains(#""index":1"#) == true)
        let fail = try CLI.run(["history", "decrypt", "--key", "enigma", "--on-error", "fail", "-i", response.path])
        #expect(fail.status == 1)
        #expect(fail.stdout.isEmpty)
        let notHistory = try CLI.run(["history", "decrypt", "--key", "enigma", #"{"a":1}"#])
        #expect(notHistory.status == 65)
    }

    @Test("legacy33 messages with nothing encrypted fail: message, history, --lines", .tags(.slow), .notInQuickRun,
          arguments: messagesWithNoStringLeaf)
    func legacy33NothingEncrypted(text: String) throws {
        let key = ["--key", "k", "--scheme", "legacy33"]
        let single = try CLI.run(["message", "decrypt"] + key + ["--on-error", "fail", text])
        #expect(single.status == 1 && single.stdout.isEmpty, "\(single.stderr)")
        #expect(single.stderr.contains(#""reason":"notEncrypted""#), "\(single.stderr)")
        let marker = try CLI.run(["message", "decrypt"] + key + [text])
        #expect(marker.status == 1 && marker.text == "\"DECRYPTION_ERROR\"\n", "\(marker.text)")
        let history = try CLI.run(["history", "decrypt"] + key + ["--on-error", "fail", "[[\(text)],1,2]"])
        #expect(history.status == 1 && history.stdout.isEmpty, "\(history.stderr)")
        #expect(history.stderr.contains(#""index":0"#), "\(history.stderr)")
        let lines = try CLI.run(["message", "decrypt", "--lines"] + key, stdin: Array((text + "\n").utf8))
        #expect(lines.status == 1, "\(lines.stderr)")
        #expect(lines.text == "\"DECRYPTION_ERROR\"\n", "\(lines.text)")
        #expect(lines.stderr.contains(#""line":1"#) && lines.stderr.contains("notEncrypted"), "\(lines.stderr)")
        let failLines = try CLI.run(["message", "decrypt", "--lines", "--on-error", "fail"] + key,
                                    stdin: Array((text + "\n").utf8))
        #expect(failLines.status == 1 && failLines.stdout.isEmpty, "\(failLines.stderr)")
    }

    @Test("message decrypt on the command line takes several keys")
    func severalKeys() throws {
        let result = try CLI.run(["message", "decrypt", "--key", "new", "--key", "enigma",
            "\"06UDjczkvAAYcqWfNwkOiQ==\""])
        #expect(result.status == 0)
        #expect(result.text == "\"Hello World\"\n")
        #expect(result.stderr.isEmpty)
    }
}
