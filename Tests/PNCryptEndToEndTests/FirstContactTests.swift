import Foundation
import Testing
import PNCryptTestSupport
import PNCryptCLITestSupport

// What a new user meets first (the README's commands, the install script), each tried as that user would.

@Suite struct FirstContactTests {
    static func readme() throws -> String {
        try String(contentsOf: Package.root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The text of `document` from the heading `## title` to the next `## ` heading.
    static func section(_ title: String, of document: String) throws -> String {
        try #require(document.components(separatedBy: "\n## \(title)\n").dropFirst().first, "no section \(title)")
            .components(separatedBy: "\n## ")[0]
    }

    /// The lines of every ```sh block of `text`, in order.
    static func shellLines(_ text: String) -> [String] {
        var lines: [String] = []
        var inside = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inside = !inside && line == "```sh"
            } else if inside {
                lines.append(String(line))
            }
        }
        return lines
    }

    @Test("the completion lines of the README and docs/cli.md work on a fresh home (their folders do not exist)",
          arguments: ["README.md", "docs/cli.md"])
    func completionLinesOnAFreshHome(document: String) throws {
        let text = try String(contentsOf: Package.root.appendingPathComponent(document), encoding: .utf8)
        let script = Self.shellLines(try Self.section("Shell completion", of: text)).joined(separator: "\n")
        #expect(script.contains("--generate-completion-script"))
        try withTemporaryDirectory { home in
            let path = CLI.binary.deletingLastPathComponent().path + ":/usr/bin:/bin"
            let run = try runProcess("/bin/bash", ["-euc", script], environment: ["HOME": home.path, "PATH": path],
                                     directory: home)
            #expect(run.status == 0, "\(document): \(run.stderr)")
            for file in [".local/share/bash-completion/completions/pncrypt", ".zfunc/_pncrypt",
                         ".config/fish/completions/pncrypt.fish"] {
                let written = try? Data(contentsOf: home.appendingPathComponent(file))
                #expect((written?.count ?? 0) > 100 && String(decoding: written ?? Data(), as: UTF8.self)
                            .contains("pncrypt"), "\(document): \(file)")
            }
        }
    }

    @Test("a wrong key names the command that says why, and that command, run as named, says it",
          arguments: [["decrypt"], ["message", "decrypt"]])
    func wrongKeyPointsAtDiagnose(command: [String]) throws {
        // The README's example with the key mistyped, then a second key that is right: the first run fails, and
        // diagnose, given what the hint names (the same keys and the same text), explains both cases.
        let sealed = "q/xJqqN6qbiZMXYmiQC1Fw=="
        let failed = try CLI.run(command + ["--key", "enigm", sealed])
        #expect(failed.status == 1)
        let hint = "pncrypt diagnose, given the same key and the encrypted text, says why"
        #expect(failed.stderr.split(separator: "\n").last?.contains(hint) == true, "\(failed.stderr)")
        let wrong = try CLI.run(["diagnose", "--key", "enigm", sealed])
        #expect(wrong.status == 1 && wrong.text.contains("wrong key"), "\(wrong.text)\(wrong.stderr)")
        let right = try CLI.run(["diagnose", "--key", "enigm", "--key", "enigma", sealed])
        #expect(right.status == 0 && right.text.contains("key #2"), "\(right.text)\(right.stderr)")
        // Text that is not a ciphertext at all fails with its own error, which names no other command.
        let notBase64 = try CLI.run(command + ["--key", "enigma", "hello there"])
        #expect(notBase64.status != 0 && !notBase64.stderr.contains("diagnose"), "\(notBase64.stderr)")
    }

    @Test("the tour installs pncrypt (or uses swift run) before its first bare pncrypt command")
    func installBeforeTheTour() throws {
        let lines = Self.shellLines(try Self.readme())
        let firstBare = try #require(lines.firstIndex { $0.hasPrefix("pncrypt ") })
        let install = lines.firstIndex { $0.hasPrefix("scripts/build/install.sh ") && $0.contains("PATH=") }
        #expect(install.map { $0 < firstBare } == true, "\(lines[firstBare])")
    }

    @Test("the README says how long swift test takes and what a passing run prints, XCTest's line first")
    func testCommandOutput() throws {
        let part = try Self.section("The two commands", of: try Self.readme())
        #expect(part.contains("about 5 minutes"))
        #expect(part.contains("`Executed 0 tests, with 0 failures`"))
        // The line .ci/run reads the count from.
        #expect(part.range(of: "`Test run with N tests in M suites passed", options: .literal) != nil)
    }

    @Test("the README names --json only for commands that have it")
    func readmeJSONOptions() throws {
        let readme = try Self.readme()
        let commands = try CLI.run(["--help"]).text.split(separator: "\n")
            .compactMap { line -> String? in
                let words = line.split(separator: " ")
                return line.hasPrefix("  ") && words.count > 1 ? String(words[0]) : nil
            }
        #expect(commands.contains("inspect") && commands.contains("diagnose"), "\(commands)")
        // Each clause (between commas, semicolons and sentence ends) that names --json: its commands have it.
        var checked = 0
        for clause in readme.components(separatedBy: CharacterSet(charactersIn: ",;.")) where clause
            .contains("`--json`") {
            for command in commands where clause.contains("`\(command)`") || clause.contains("`\(command) --json`") {
                let help = try CLI.run([command, "--help"]).text
                #expect(help.contains("--json"), "the README names `\(command)`'s --json: \(clause)")
                checked += 1
            }
        }
        #expect(checked > 0)
    }

    @Test("scripts/build/install.sh installs a stripped pncrypt that runs, with its man page and completions")
    func installStripped() throws {
        try withTemporaryDirectory { dir in
            let prefix = dir.appendingPathComponent("prefix")
            let script = Package.root.appendingPathComponent("scripts/build/install.sh").path
            var environment = ProcessInfo.processInfo.environment
            environment["PNCRYPT_INSTALL_BINARY"] = CLI.built.path
            environment["TMPDIR"] = dir.path
            let run = try runProcess("/bin/bash", [script, prefix.path], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let installed = prefix.appendingPathComponent("bin/pncrypt")
            #expect(run.text == installed.path + "\n")
            #expect(try Self.hasSymbolTable(CLI.built))
            #expect(try !Self.hasSymbolTable(installed), "the installed pncrypt still has its symbol table")
            let built = try FileManager.default.attributesOfItem(atPath: CLI.built.path)[.size] as? Int ?? 0
            let size = try FileManager.default.attributesOfItem(atPath: installed.path)[.size] as? Int ?? 0
            #expect(size > 0 && size < built)
            let version = try runProcess(installed.path, ["--version"])
            let expected = try CLI.run(["--version"]).text
            #expect(version.status == 0 && version.text == expected)
            let legacy = try runProcess(installed.path, ["decrypt", "--key", "enigma", "q/xJqqN6qbiZMXYmiQC1Fw=="])
            #expect(legacy.status == 0 && legacy.text == "yay!", "\(legacy.stderr)")
            for file in ["share/man/man1/pncrypt.1", "share/bash-completion/completions/pncrypt",
                         "share/zsh/site-functions/_pncrypt", "share/fish/vendor_completions.d/pncrypt.fish"] {
                #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent(file).path), "\(file)")
            }
            // Its temporary folder is gone.
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["prefix"])
        }
    }

    /// Whether the ELF64 file at `url` has a section of type SHT_SYMTAB (2): the symbol table `strip` removes
    /// (the dynamic one, SHT_DYNSYM, stays).
    static func hasSymbolTable(_ url: URL) throws -> Bool {
        let data = try Data(contentsOf: url, options: .alwaysMapped)
        func integer(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(data[offset + $1]) << (8 * $1) }  // little-endian
        }
        try #require(data.count > 64 && data.prefix(4) == Data([0x7F, 0x45, 0x4C, 0x46]) && data[4] == 2,
                     "not an ELF64 file: \(url.path)")
        let (sections, entrySize, count) = (integer(0x28, 8), integer(0x3A, 2), integer(0x3C, 2))
        return (0..<count).contains { integer(sections + $0 * entrySize + 4, 4) == 2 }
    }
}
