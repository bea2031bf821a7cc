import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI as Unix users expect it (each suite runs the built binary): exit statuses.
@Suite(.tags(.cli)) struct CLIExitCodeTests {
    @Test("each exit status comes from its documented cases", arguments: [
        (1, ["decrypt", "--key", "wrong", "q/xJqqN6qbiZMXYmiQC1Fw=="]),
        (1, ["gunzip", "-i", "plain"]),
        (64, ["encrypt", "--key", "k", "--bogus", "x"]),
        (64, ["decrypt", "q/xJqqN6qbiZMXYmiQC1Fw=="]),
        (65, ["message", "decrypt", "--key", "k", "{"]),
        (66, ["encrypt", "--key", "k", "-i", "missing"]),
        (66, ["decrypt", "--key-file", "missing", "x"]),
        (73, ["encrypt", "--key", "k", "-o", "missing/OUT", "x"]),
        (73, ["encrypt", "--key", "k", "--binary", "-i", "plain", "-o", "missing/OUT"]),
        (73, ["decrypt", "--key", "k", "--binary", "-i", "sealed", "-o", "missing/OUT"]),
        (73, ["gzip", "-i", "plain", "-o", "missing/OUT"]),
        (73, ["gunzip", "-i", "plain.gz", "-o", "missing/OUT"]),
        (73, ["message", "encrypt", "--key", "k", "-o", "missing/OUT", "1"]),
        (73, ["history", "decrypt", "--key", "k", "-o", "missing/OUT", "[[],1,2]"]),
        (74, ["encrypt", "--key", "k", "-o", "/dev/full", "x"]),
    ] as [(Int32, [String])])
    func statuses(expected: Int32, arguments: [String]) throws {
        try withTemporaryDirectory { dir in
            try Data("plain text".utf8).write(to: dir.appendingPathComponent("plain"))
            #expect(try CLI.run(["encrypt", "--key", "k", "--binary", "-i", "plain", "-o", "sealed"],
                                directory: dir).status == 0)
            #expect(try CLI.run(["gzip", "-i", "plain", "-o", "plain.gz"], directory: dir).status == 0)
            let result = try CLI.run(arguments, directory: dir)
            #expect(result.status == expected, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("pncrypt: ") && result.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(result.stderr)")
            #expect(result.text.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("missing").path))
        }
    }

    static let statuses = ["0", "1", "64", "65", "66", "73", "74", "128+N"]

    @Test("--help and the README list every exit status with its cases")
    func documented() throws {
        let help = try CLI.run(["--help"]).text
        let section = try #require(help.components(separatedBy: "Exit status:").dropFirst().first,
                                   "no Exit status section in --help")
        let readme = try String(contentsOf: Package.root.appendingPathComponent("README.md"), encoding: .utf8)
        let readmeSection = try #require(readme.components(separatedBy: "## Exit status").dropFirst().first,
                                         "no Exit status section in README.md")
            .components(separatedBy: "\n## ").first ?? ""
        for status in Self.statuses {
            // Each status on a line of its own, followed by the cases that produce it.
            let line = section.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces)
                .hasPrefix(status + " ") }
            #expect((line?.count ?? 0) > status.count + 10, "--help: \(status)")
            #expect(readmeSection.contains("| \(status) |") || readmeSection.contains("`\(status)`"),
                    "README: \(status)")
        }
    }
}
