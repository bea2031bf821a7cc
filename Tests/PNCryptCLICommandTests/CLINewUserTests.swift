import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

// Small things a new user runs into, each tried as a user meets it, through the built binary.

@Suite(.tags(.cli)) struct CLINewUserTests {
    @Test("decrypt --binary on a headerless file: a fixed-IV text file whole, a binary one as random-IV with a note")
    func binaryReadingNotice() throws {
        try withTemporaryDirectory { dir in
            let text = Array("a file written with the fixed IV: its first block must not vanish silently".utf8)
            let binary: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + text
            for (name, plain) in [("text", text), ("binary", binary)] {
                try Data(plain).write(to: dir.appendingPathComponent(name))
                let sealed = try CLI.run(["encrypt", "--key", "k", "--scheme", "legacy", "--binary", name,
                                          "-o", "\(name).enc"], directory: dir)
                #expect(sealed.status == 0, "\(sealed.stderr)")
            }
            // The headerless rule: the fixed-IV reading's first block is text, so the text file comes back whole.
            let whole = try CLI.run(["decrypt", "--key", "k", "--binary", "text.enc"], directory: dir)
            #expect(whole.status == 0 && whole.stdout == text && whole.stderr.isEmpty, "\(whole.stderr)")
            // A binary first block: read as random-IV (as the SDKs do), 16 bytes fewer, and a note says so.
            let auto = try CLI.run(["decrypt", "--key", "k", "--binary", "binary.enc"], directory: dir)
            #expect(auto.status == 0 && auto.stdout == Array(binary.dropFirst(16)))
            #expect(auto.stderr.contains("read as the legacy random-IV file format"), "\(auto.stderr)")
            #expect(auto.stderr.contains("read it with --legacy-scheme legacy\n"), "\(auto.stderr)")
            // Asking for the other reading gives the whole file, without a note.
            let fixed = try CLI.run(["decrypt", "--key", "k", "--binary", "--legacy-scheme", "legacy", "binary.enc"],
                                    directory: dir)
            #expect(fixed.status == 0 && fixed.stdout == binary && fixed.stderr.isEmpty)
        }
    }

    @Test("inspect --binary on a plaintext file says it does not look encrypted, not a decryption error")
    func inspectPlaintext() throws {
        try withTemporaryDirectory { dir in
            try Data("hello world, this is a plain text file, not ciphertext\n".utf8)
                .write(to: dir.appendingPathComponent("notes.txt"))
            let odd = try CLI.run(["inspect", "--binary", "notes.txt"], directory: dir)
            #expect(odd.status == 1)
            #expect(odd.stderr == "pncrypt: not ciphertext: the input does not look encrypted (no PNED header, and "
                    + "55 bytes is not a whole number of 16-byte blocks); the bytes look like plain text\n")
            // Whole blocks of text could be ciphertext by length alone: the text is pointed out.
            try Data(String(repeating: "plain text line\n", count: 4).utf8)
                .write(to: dir.appendingPathComponent("blocks.txt"))
            let blocks = try CLI.run(["inspect", "--binary", "blocks.txt"], directory: dir)
            #expect(blocks.status == 0)
            #expect(blocks.text.hasSuffix("the bytes look like plain text (UTF-8, no control characters): "
                                          + "probably not encrypted\n"), "\(blocks.text)")
            // Real ciphertext gets no such line.
            let sealed = try CLI.run(["encrypt", "--key", "k", "--binary", "--scheme", "legacy", "blocks.txt",
                                      "-o", "blocks.enc"], directory: dir)
            #expect(sealed.status == 0)
            let real = try CLI.run(["inspect", "--binary", "blocks.enc"], directory: dir)
            #expect(real.status == 0 && !real.text.contains("plain text"), "\(real.text)")
            let empty = try CLI.run(["inspect", "--binary", "-"])
            #expect(empty.status == 1 && empty.stderr == "pncrypt: not ciphertext: the input is empty\n")
        }
    }

    @Test("a file name given as TEXT is still encrypted as text, with a note that -i or --binary was meant")
    func fileNameAsText() throws {
        try withTemporaryDirectory { dir in
            try Data([0xFF, 0xD8, 0xFF]).write(to: dir.appendingPathComponent("photo.jpg"))
            let run = try CLI.run(["encrypt", "--key", "k", "photo.jpg"], directory: dir)
            #expect(run.status == 0)
            #expect(run.stderr == "pncrypt: note: 'photo.jpg' is also a file: its name was taken as the TEXT; for the "
                    + "file's contents give -i photo.jpg (text) or --binary photo.jpg (a file format)\n")
            let back = try CLI.run(["decrypt", "--key", "k", run.text.trimmingCharacters(in: .newlines)])
            #expect(back.text == "photo.jpg")
            let noFile = try CLI.run(["encrypt", "--key", "k", "photo.png"], directory: dir)
            #expect(noFile.status == 0 && noFile.stderr.isEmpty)
        }
    }

    @Test("one thing is counted in the singular: 1 character, 1 byte")
    func plurals() throws {
        let base64 = try CLI.run(["decrypt", "--key", "k", "QUJDR"])
        #expect(base64.status == 1)
        #expect(base64.stderr.contains("not Base64: 1 character left over"), "\(base64.stderr)")
        let oneByte = try CLI.run(["inspect", "--binary", "-"], stdin: [0x80])
        #expect(oneByte.stderr.contains("1 byte is not"), "\(oneByte.stderr)")
        let sealed = try CLI.run(["encrypt", "--key", "k", "--scheme", "acrh", "a"])
        let diagnosis = try CLI.run(["diagnose", "--key", "k", sealed.text.trimmingCharacters(in: .newlines)])
        #expect(diagnosis.text.contains("the plaintext (1 byte)"), "\(diagnosis.text)")
        for result in [base64.stderr, oneByte.stderr, diagnosis.text] {
            #expect(result.range(of: #"\b1 [a-z]+s\b"#, options: .regularExpression) == nil, "\(result)")
        }
    }

    @Test("diagnose --legacy-scheme legacy-random-iv on an ambiguous message does not contradict itself")
    func diagnoseClientSetting() throws {
        // Fixed key, fixed IV, fixed text: both legacy readings have valid padding and UTF-8, only the fixed-IV
        // one is JSON. A random-IV client shows the message's last 24 bytes, without DECRYPTION_ERROR.
        let sealed = try CLI.run(["encrypt", "--key", "enigma", "--scheme", "legacy",
                                  #"{"a":"hello there my friend, long text"}"#])
        let text = sealed.text.trimmingCharacters(in: .newlines)
        let result = try CLI.run(["diagnose", "--key", "enigma", "--legacy-scheme", "legacy-random-iv", text])
        #expect(result.status == 0)
        #expect(!result.text.contains("legacy-random-iv) shows DECRYPTION_ERROR"), "\(result.text)")
        #expect(result.text.contains("a client set to a random IV (legacy-random-iv) shows other text for it "
                                     + "(24 bytes read with key #1), without DECRYPTION_ERROR"), "\(result.text)")
        #expect(result.text.hasSuffix("a client set to --legacy-scheme legacy-random-iv reads it as "
                                      + "legacy-random-iv with key #1: other text than the most likely reading above, "
                                      + "without DECRYPTION_ERROR\n"), "\(result.text)")
        let fixed = try CLI.run(["diagnose", "--key", "enigma", "--legacy-scheme", "legacy", text])
        #expect(fixed.text.hasSuffix("a client set to --legacy-scheme legacy reads it (with key #1)\n"))
    }

    // MARK: - The man page and the install scripts

    /// The rows of README.md's exit status table: (status, when), code spans without their backticks.
    static func readmeExitStatuses() throws -> [(String, String)] {
        let readme = try String(contentsOf: Package.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Exit status\n").dropFirst().first)
            .components(separatedBy: "\n## ")[0]
        return section.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| status ") }
            .map { row in
                let cells = row.dropFirst(2).dropLast(2).components(separatedBy: " | ")
                return (cells[0], cells.dropFirst().joined(separator: " | ").replacingOccurrences(of: "`", with: ""))
            }
    }

    @Test("pncrypt(1): EXIT STATUS is the README's table, row for row; ENVIRONMENT, FILES and SEE ALSO exist")
    func manPage() throws {
        let page = try String(contentsOf: Package.root.appendingPathComponent("docs/pncrypt.1"), encoding: .utf8)
        let sections = page.components(separatedBy: "\n.Sh ")
        func section(_ name: String) -> String? {
            sections.first { $0.hasPrefix(name + "\n") }.map { String($0.dropFirst(name.count + 1)) }
        }
        let exitStatus = try #require(section("\"EXIT STATUS\""), "no EXIT STATUS section")
        var rows: [(String, String)] = []
        for line in exitStatus.split(separator: "\n") {
            if line.hasPrefix(".It ") {
                rows.append((String(line.dropFirst(4)), ""))
            } else if !line.hasPrefix("."), !rows.isEmpty {
                rows[rows.count - 1].1 += (rows[rows.count - 1].1.isEmpty ? "" : " ") + line
            }
        }
        let readme = try Self.readmeExitStatuses()
        #expect(readme.count >= 8)
        #expect(rows.map(\.0) == readme.map(\.0))
        #expect(rows.map(\.1) == readme.map(\.1))
        let environment = try #require(section("ENVIRONMENT"), "no ENVIRONMENT section")
        #expect(environment.contains(".It Ev PNCRYPT_KEY\n") && environment.contains(".It Ev PNCRYPT_TO_KEY\n"))
        #expect(section("FILES")?.contains("/dev/tty") == true)
        #expect(section("\"SEE ALSO\"")?.contains(".Xr gzip 1") == true)
    }

    @Test("scripts/build/install.sh and install_lib.sh: --help prints help and exits 0, installing nothing")
    func installScriptsHelp() throws {
        try withTemporaryDirectory { dir in
            // A PATH with the few tools a script's start needs and no swift: a script that took --help for a
            // PREFIX fails at once instead of starting a release build.
            let tools = dir.appendingPathComponent("tools")
            try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
            for tool in ["sed", "dirname", "mkdir", "cat"] {
                let found = try #require(findTool(tool), "no \(tool)")
                try FileManager.default.createSymbolicLink(atPath: tools.appendingPathComponent(tool).path,
                                                           withDestinationPath: found)
            }
            let work = dir.appendingPathComponent("work")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            for script in ["install.sh", "install_lib.sh"] {
                let path = Package.root.appendingPathComponent("scripts/build/\(script)").path
                for flag in ["--help", "-h"] {
                    let result = try runProcess("/bin/bash", [path, flag], environment: ["PATH": tools.path],
                                                directory: work)
                    #expect(result.status == 0, "\(script) \(flag): \(result.stderr)")
                    #expect(result.text.contains("installs it under PREFIX"), "\(script) \(flag): \(result.text)")
                }
                let unknown = try runProcess("/bin/bash", [path, "--prefix"], environment: ["PATH": tools.path],
                                             directory: work)
                #expect(unknown.status == 64 && unknown.stderr.contains("unknown option"), "\(unknown.stderr)")
            }
            // Nothing was created where the scripts ran, nor in the repository (no folder named --help).
            #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: Package.root.appendingPathComponent("--help").path))
        }
    }
}
