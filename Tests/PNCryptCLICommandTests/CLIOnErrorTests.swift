import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI as Unix users expect it (each suite runs the built binary): `--on-error` for unencrypted messages.
@Suite(.tags(.cli)) struct CLIOnErrorTests {
    static let plain = #"{"not":"encrypted"}"#

    @Test("a message not encrypted gets one status line under marker and passthrough, fails under fail")
    func notEncryptedMessage() throws {
        for (policy, delivered) in [("marker", "\"DECRYPTION_ERROR\""), ("passthrough", Self.plain)] {
            // Delivered as --on-error says, and exit 1: the message was not decrypted.
            let result = try CLI.run(["message", "decrypt", "--key", "k", "--on-error", policy, Self.plain])
            #expect(result.status == 1, "\(policy)")
            #expect(result.text == delivered + "\n", "\(policy)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 2 && lines[0].contains(#""reason":"notEncrypted""#), "\(policy): \(result.stderr)")
            let allowed = try CLI.run(["message", "decrypt", "--key", "k", "--on-error", policy, "--allow-failures",
                                       Self.plain])
            #expect(allowed.status == 0 && allowed.text == result.text, "\(policy)")
            #expect(allowed.stderr.split(separator: "\n").count == 1, "\(policy): \(allowed.stderr)")
        }
        let fail = try CLI.run(["message", "decrypt", "--key", "k", "--on-error", "fail", Self.plain])
        #expect(fail.status == 1)
        #expect(fail.text.isEmpty)
        #expect(fail.stderr.split(separator: "\n").count == 1 && fail.stderr.contains("notEncrypted"))
    }

    @Test("history decrypt treats a message not encrypted the same way; passthrough keeps the original")
    func notEncryptedInHistory() throws {
        let response = #"[["06UDjczkvAAYcqWfNwkOiQ==",{"message":{"a":1},"timetoken":13406746729185766}],1,2]"#
        let passthrough = try CLI.run(["history", "decrypt", "--key", "enigma", "--scheme", "legacy",
                                       "--on-error", "passthrough", response])
        #expect(passthrough.status == 1)
        #expect(passthrough.text == #"[["Hello World",{"message":{"a":1},"timetoken":13406746729185766}],1,2]"# + "\n")
        #expect(passthrough.stderr.split(separator: "\n").first?.contains(#""index":1"#) == true)
        #expect(passthrough.stderr.hasSuffix(CLIExitStatusTests.summary(1, "2 messages")), "\(passthrough.stderr)")
        let fail = try CLI.run(["history", "decrypt", "--key", "enigma", "--scheme", "legacy", "--on-error", "fail",
                                response])
        #expect(fail.status == 1)
        #expect(fail.text.isEmpty)
    }
}
