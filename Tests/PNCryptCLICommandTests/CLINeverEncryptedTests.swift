import Foundation
import Testing
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// A message that was not decrypted always has a status (issue 55, item 2), walked over the command tree: every
/// command that decrypts (its name says decrypt or rekey, and `diagnose`, `inspect`) is run on input that was never
/// encrypted (a JSON object and a number where a message goes, plain text where Base64 goes), under every
/// `--on-error` it takes, and must say so: exit 1, and for the message commands one status line per message. A
/// decrypting command without runs in the table fails the first test.
@Suite(.tags(.cli)) struct CLINeverEncryptedTests {
    /// For each decrypting command: (arguments after the command, standard input, status lines expected). `@NAME`
    /// is a file of the fixture.
    static let runs: [String: [(arguments: [String], stdin: String, statuses: Int)]] = [
        "decrypt": [(["-k", "k", #"{"cmd":"transfer"}"#], "", 0), (["-k", "k", "-i", "@PLAIN"], "", 0),
                    (["-k", "k"], "hello, never encrypted\n", 0)],
        "diagnose": [(["-k", "k", #"{"cmd":"transfer"}"#], "", 0), (["-k", "k", "-i", "@PLAIN"], "", 0)],
        "inspect": [(["-k", "k", #"{"cmd":"transfer"}"#], "", 0)],
        "message decrypt": [(["-k", "k", #"{"cmd":"transfer"}"#], "", 1), (["-k", "k", "42"], "", 1),
                            (["-k", "k", "--lines"], "{\"cmd\":\"transfer\"}\n42\n", 2),
                            (["-k", "k", "--field", "/message", "-i", "@RECORD"], "", 1),
                            (["-k", "k", "--lines", "--field", "/message", "-i", "@RECORDS"], "", 2)],
        "message rekey": [(["-k", "k", "--to-key", "k2", #"{"cmd":"transfer"}"#], "", 1),
                          (["-k", "k", "--to-key", "k2", "--lines"], "{\"cmd\":\"transfer\"}\n42\n", 2),
                          (["-k", "k", "--to-key", "k2", "--field", "/message", "-i", "@RECORD"], "", 1)],
        "history decrypt": [(["-k", "k", "-i", "@HISTORY"], "", 2), (["-k", "k", "--lines", "-i", "@HISTORY"], "", 2)],
        "history rekey": [(["-k", "k", "--to-key", "k2", "-i", "@HISTORY"], "", 2)],
        "subscribe decrypt": [(["-k", "k", "-i", "@SUBSCRIBE"], "", 2)],
        "subscribe rekey": [(["-k", "k", "--to-key", "k2", "-i", "@SUBSCRIBE"], "", 2)],
    ]

    static func fixture(in dir: URL) throws {
        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: dir.appendingPathComponent(name))
        }
        try write("PLAIN", "hello, never encrypted\n")
        try write("RECORD", #"{"channel":"ch","message":{"cmd":"transfer"},"timetoken":"1"}"# + "\n")
        try write("RECORDS", #"{"channel":"ch","message":{"cmd":"transfer"}}"# + "\n" + #"{"message":42}"# + "\n")
        try write("HISTORY", #"[[{"cmd":"transfer"},42],1,2]"#)
        try write("SUBSCRIBE", #"{"t":{"t":"1","r":1},"m":[{"c":"ch","d":{"cmd":"transfer"}},{"c":"ch","d":42}]}"#)
    }

    @Test("every command that decrypts has never-encrypted runs in the table, and the table names only commands")
    func everyDecryptingCommandHasRuns() throws {
        let paths = Set(try CLISurfaceTests.commands().map { $0.path.joined(separator: " ") })
        for path in paths.sorted() where path.contains("decrypt") || path.contains("rekey") {
            #expect(!(Self.runs[path] ?? []).isEmpty,
                    "'pncrypt \(path)' decrypts and has no run in CLINeverEncryptedTests.runs: add one")
        }
        for path in Self.runs.keys.sorted() { #expect(paths.contains(path), "'\(path)' is not a command") }
    }

    @Test("never-encrypted input is never reported as decrypted, under every --on-error", arguments: runs.keys.sorted())
    func neverEncrypted(command: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.fixture(in: dir)
        // The --on-error values the command takes: those its help lists (`--on-error <marker|passthrough|fail>`,
        // one declaration for every command), but marker for rekey, which keeps what it cannot move and refuses it.
        let commandHelp = try CLI.run(command.split(separator: " ").map(String.init) + ["--help"])
        let listed = commandHelp.text.firstMatch(of: /--on-error <([a-z|]+)>/).map {
            $0.1.split(separator: "|").map(String.init)
        }
        let rekey = command.hasSuffix("rekey")
        if rekey {
            let marker = try CLI.run(command.split(separator: " ").map(String.init) + ["--on-error", "marker"])
            #expect(marker.status == 64 && marker.stderr.contains("--on-error passthrough or fail"),
                    "\(command) --on-error marker: \(marker.status) \(marker.stderr)")
        }
        let policies: [String?] = listed.map { $0.filter { !rekey || $0 != "marker" } } ?? [nil]
        for (arguments, stdin, statuses) in try #require(Self.runs[command]) {
            for policy in policies {
                let resolved = command.split(separator: " ").map(String.init)
                    + arguments.map { $0.hasPrefix("@") ? dir.appendingPathComponent(String($0.dropFirst())).path : $0 }
                    + (policy.map { ["--on-error", $0] } ?? [])
                let run = try CLI.run(resolved, stdin: Array(stdin.utf8))
                let what = resolved.joined(separator: " ")
                #expect(run.status == 1, "\(what): status \(run.status): \(run.stderr)")
                let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
                if statuses > 0 && policy != "fail" {
                    #expect(lines.count == statuses, "\(what): \(run.stderr)")
                    #expect(lines.allSatisfy { $0.contains("\"reason\":\"notEncrypted\"") }, "\(what): \(run.stderr)")
                }
            }
        }
    }
}
