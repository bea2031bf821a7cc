import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport

// The CLI as Unix users expect it: files are paths, keys come from anywhere a secret comes from, binary never goes
// to a terminal, exit statuses, --on-error, messages that point to the fix, names and options, help, reports. One
// suite per subject, each running the built binary.

/// Runs `pncrypt` on a pseudo-terminal (Python's `pty` module): the terminal is its controlling terminal, its
/// standard input and (unless `stdout` names a file) its standard output. Each time the output ends with a prompt
/// (": "), the next answer is typed, and whether the terminal echoed input at that moment is recorded.
enum Terminal {
    struct Run: Decodable {
        /// The exit status (128 + N for a signal N).
        var status: Int32
        /// Everything written to the terminal.
        var transcript: String
        /// At each prompt: whether the terminal echoed input.
        var echo: [Bool]
        /// Whether the terminal echoed input once the run was over.
        var echoAfter: Bool
    }

    static let driver = """
        import json, os, pty, sys, termios
        spec = json.loads(sys.argv[1])
        pid, fd = pty.fork()
        if pid == 0:
            if spec.get("cwd"):
                os.chdir(spec["cwd"])
            if spec.get("stdout"):
                out = os.open(spec["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(out, 1)
            os.execv(spec["argv"][0], spec["argv"])
        answers = [a.encode() for a in spec["answers"]]
        transcript, pending, echo = b"", b"", []
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            transcript += data
            pending += data
            if answers and pending.endswith(b": "):
                echo.append(bool(termios.tcgetattr(fd)[3] & termios.ECHO))
                os.write(fd, answers.pop(0))
                pending = b""
        _, status = os.waitpid(pid, 0)
        code = 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        echo_after = bool(termios.tcgetattr(fd)[3] & termios.ECHO)
        print(json.dumps({"status": code, "transcript": transcript.decode("utf-8", "replace"),
                          "echo": echo, "echoAfter": echo_after}))
        """

    /// Runs `pncrypt arguments...` on a terminal, typing `answers` at its prompts.
    static func run(_ arguments: [String], answers: [String] = [], stdout: URL? = nil, directory: URL? = nil)
        throws -> Run {
        let python = try #require(findTool("python3"), "the terminal tests need python3")
        var spec: [String: Any] = ["argv": [CLI.binary.path] + arguments, "answers": answers]
        if let stdout { spec["stdout"] = stdout.path }
        if let directory { spec["cwd"] = directory.path }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let result = try runProcess(python, ["-c", driver, json], environment: CLI.environment())
        try #require(result.status == 0, "the terminal driver failed: \(result.stderr)")
        return try JSONDecoder().decode(Run.self, from: Data(result.stdout))
    }
}

/// A file of `count` deterministic bytes that are not text.
private func binaryFile(_ url: URL, count: Int) throws -> [UInt8] {
    let bytes = (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
    try Data(bytes).write(to: url)
    return bytes
}

// MARK: - Files are paths

@Suite(.tags(.cli)) struct CLIFileArgumentTests {
    @Test("with --binary the positional argument is an input path (encrypt, decrypt, inspect)")
    func binaryPositionalIsPath() throws {
        try withTemporaryDirectory { dir in
            let photo = try binaryFile(dir.appendingPathComponent("photo.jpg"), count: 100_000)
            let sealed = try CLI.run(["encrypt", "--key", "k", "--binary", "photo.jpg", "-o", "p.enc"],
                                     directory: dir)
            #expect(sealed.status == 0, "\(sealed.stderr)")
            let size = try Data(contentsOf: dir.appendingPathComponent("p.enc")).count
            #expect(size == 26 + photo.count / 16 * 16 + 16, "the file was not what was encrypted")
            let opened = try CLI.run(["decrypt", "--key", "k", "--binary", "p.enc", "-o", "back.jpg"], directory: dir)
            #expect(opened.status == 0, "\(opened.stderr)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("back.jpg")) == Data(photo))
            let inspected = try CLI.run(["inspect", "--binary", "p.enc"], directory: dir)
            #expect(inspected.status == 0, "\(inspected.stderr)")
            #expect(inspected.text.contains("ciphertext: \(size - 26) bytes"), "\(inspected.text)")
            // A missing file is a missing input, not text to encrypt.
            let missing = try CLI.run(["encrypt", "--key", "k", "--binary", "nope.jpg"], directory: dir)
            #expect(missing.status == 66, "\(missing.stderr)")
            #expect(missing.stderr == "pncrypt: input file 'nope.jpg' does not exist\n")
        }
    }

    @Test("gzip and gunzip take the positional argument as an input path")
    func gzipPositionalIsPath() throws {
        try withTemporaryDirectory { dir in
            let numbers = Array((1...20_000).map(String.init).joined(separator: "\n").utf8)
            try Data(numbers).write(to: dir.appendingPathComponent("nums.txt"))
            let packed = try CLI.run(["gzip", "nums.txt", "-o", "nums.txt.gz"], directory: dir)
            #expect(packed.status == 0, "\(packed.stderr)")
            let gzip = try runProcess(try #require(findTool("gzip")), ["-dc", "nums.txt.gz"], directory: dir)
            #expect(Data(gzip.stdout) == Data(numbers))
            let unpacked = try CLI.run(["gunzip", "nums.txt.gz"], directory: dir)
            #expect(unpacked.status == 0, "\(unpacked.stderr)")
            #expect(Data(unpacked.stdout) == Data(numbers))
            // "-" is standard input, as for gzip.
            let stdin = try CLI.run(["gunzip", "-"], stdin: Array(try Data(contentsOf: dir.appendingPathComponent(
                "nums.txt.gz"))), directory: dir)
            #expect(Data(stdin.stdout) == Data(numbers))
        }
    }

    @Test("text mode keeps TEXT, even when a file has that name")
    func textModeKeepsText() throws {
        try withTemporaryDirectory { dir in
            try Data("not this".utf8).write(to: dir.appendingPathComponent("yay!"))
            let text = try CLI.run(["encrypt", "--key", "enigma", "--scheme", "legacy", "yay!"], directory: dir)
            #expect(text.text == "q/xJqqN6qbiZMXYmiQC1Fw==\n")
        }
    }

    @Test("each command's usage says what the positional argument is")
    func usageSaysPath() throws {
        for command in ["encrypt", "decrypt", "inspect"] {
            let help = try CLI.run([command, "--help"]).text
            #expect(help.contains("with --binary, a file path"), "\(command): \(help)")
        }
        for command in ["gzip", "gunzip"] {
            let help = try CLI.run([command, "--help"]).text
            #expect(help.contains("[<path>]"), "\(command): \(help)")
        }
    }
}

// MARK: - Keys from anywhere a secret comes from

@Suite(.tags(.cli)) struct CLIKeySourceTests {
    static let sealed = "q/xJqqN6qbiZMXYmiQC1Fw=="

    @Test("--key-file reads -, /dev/stdin, a FIFO and process substitution")
    func keyFileFromStreams() throws {
        try withTemporaryDirectory { dir in
            for path in ["-", "/dev/stdin"] {
                let result = try CLI.run(["decrypt", "--scheme", "legacy", "--key-file", path, Self.sealed],
                                         stdin: Array("enigma\n".utf8))
                #expect(result.status == 0, "\(path): \(result.stderr)")
                #expect(result.text == "yay!", "\(path)")
            }
            // The writer's output goes to /dev/null (it must not hold the run's pipes open), and it is released
            // afterwards should the run not have read the FIFO.
            let fifo = try CLI.run(["-c", "mkfifo key; { printf 'enigma\\n' > key; } >/dev/null 2>&1 & "
                                    + "exec \"$@\"", "sh", CLI.binary.path, "decrypt", "--scheme", "legacy",
                                    "--key-file", "key", Self.sealed], directory: dir, executable: "/bin/sh")
            let release = open(dir.appendingPathComponent("key").path, O_RDONLY | O_NONBLOCK)
            if release >= 0 { close(release) }
            #expect(fifo.status == 0, "FIFO: \(fifo.stderr)")
            #expect(fifo.text == "yay!")
            let bash = try #require(findTool("bash"))
            let script = "exec \"$0\" decrypt --scheme legacy --key-file <(echo enigma) \"$1\""
            let substituted = try CLI.run(["-c", script, CLI.binary.path, Self.sealed], executable: bash)
            #expect(substituted.status == 0, "<(...): \(substituted.stderr)")
            #expect(substituted.text == "yay!")
        }
    }

    @Test("--key-file - with the data on standard input too is a usage error")
    func keyFileDashNeedsOtherInput() throws {
        let result = try CLI.run(["decrypt", "--key-file", "-"], stdin: Array("enigma\n".utf8))
        #expect(result.status == 64)
        #expect(result.stderr.contains("--key-file -"), "\(result.stderr)")
    }

    @Test("--key-file repeats; every key is tried")
    func keyFileRepeats() throws {
        try withTemporaryDirectory { dir in
            try Data("new\n".utf8).write(to: dir.appendingPathComponent("new"))
            try Data("enigma\n".utf8).write(to: dir.appendingPathComponent("old"))
            for files in [["new", "old"], ["old", "new"]] {
                let result = try CLI.run(["decrypt", "--scheme", "legacy", "--key-file", files[0], "--key-file",
                                          files[1], Self.sealed], directory: dir)
                #expect(result.status == 0, "\(files): \(result.stderr)")
                #expect(result.text == "yay!", "\(files)")
            }
        }
    }

    @Test("a key file drops one line end, LF or CRLF (Windows editors), no more; help says so")
    func keyFileLineEnds() throws {
        try withTemporaryDirectory { dir in
            // Each file, and whether the run takes the key as `enigma` (which decrypts; any other fails, with a hint).
            let cases: [(String, Bool)] = [("enigma", true), ("enigma\n", true), ("enigma\r\n", true),
                                          ("enigma\n\n", false), ("enigma\r\n\r\n", false), ("enigma\r", false),
                                          ("enigma\n\r\n", false), ("enigma \n", false)]
            let message = "\"\(try CryptoModule(cipherKey: "k").encrypt(Array("1".utf8), scheme: .acrh))\"\n"
            for (index, (content, isEnigma)) in cases.enumerated() {
                let file = dir.appendingPathComponent("key\(index)")
                try Data(content.utf8).write(to: file)
                let result = try CLI.run(["decrypt", "--scheme", "legacy", "--key-file", file.path, Self.sealed])
                if isEnigma {
                    #expect(result.status == 0 && result.text == "yay!", "\(content.debugDescription)")
                } else {
                    #expect(result.status == 1, "\(content.debugDescription)")
                    #expect(result.stderr.contains("the key ends with"), "\(result.stderr)")
                }
                // rekey's --to-key-file reads the same way: the new key is `enigma` only when the file says so.
                let rekeyed = try CLI.run(["message", "rekey", "--key", "k", "--to-key-file", file.path,
                                           "--to-scheme", "legacy"], stdin: Array(message.utf8))
                #expect(rekeyed.status == 0, "\(rekeyed.stderr)")
                guard case .string(let text) = try JSONValue(parsing: rekeyed.stdout) else {
                    Issue.record("\(rekeyed.text)")
                    continue
                }
                let opened = try? CryptoModule(cipherKey: "enigma").decrypt(text, reading: .only(.legacy))
                #expect((opened == Array("1".utf8)) == isEnigma, "\(content.debugDescription)")
            }
        }
        for command in [["encrypt"], ["message", "rekey"]] {
            let help = try CLI.run(command + ["--help"])
            #expect(help.text.contains("LF or CRLF"), "\(command)")
        }
    }

    @Test("no key and no terminal: one line naming the three sources, exit 64")
    func noKeyNoTerminal() throws {
        for arguments in [["decrypt", Self.sealed], ["encrypt", "x"], ["message", "decrypt", "1"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == "pncrypt: no key: give --key, --key-file or PNCRYPT_KEY\n", "\(arguments)")
            #expect(result.text.isEmpty)
        }
    }

    @Test("(pty) no key on a terminal prompts on /dev/tty without echo, twice when encrypting")
    func promptOnTerminal() throws {
        let encrypt = try Terminal.run(["encrypt", "--scheme", "legacy", "yay!"], answers: ["enigma\n", "enigma\n"])
        #expect(encrypt.status == 0, "\(encrypt.transcript)")
        #expect(encrypt.echo == [false, false], "\(encrypt.transcript)")
        #expect(encrypt.transcript.contains("q/xJqqN6qbiZMXYmiQC1Fw=="), "\(encrypt.transcript)")
        #expect(!encrypt.transcript.contains("enigma"), "the key was echoed: \(encrypt.transcript)")
        #expect(encrypt.echoAfter)

        let decrypt = try Terminal.run(["decrypt", Self.sealed], answers: ["enigma\n"])
        #expect(decrypt.status == 0, "\(decrypt.transcript)")
        #expect(decrypt.echo == [false])
        #expect(decrypt.transcript.hasSuffix("yay!"), "\(decrypt.transcript)")
    }

    @Test("(pty) two different keys at the encryption prompt exit 64 with nothing written")
    func promptMismatch() throws {
        let run = try Terminal.run(["encrypt", "--scheme", "legacy", "yay!"], answers: ["enigma\n", "enigmb\n"])
        #expect(run.status == 64)
        #expect(run.transcript.contains("pncrypt: the keys typed differ; nothing was encrypted"), "\(run.transcript)")
        #expect(!run.transcript.contains("q/xJ"))
        #expect(run.echoAfter)
    }

    @Test("(pty) Ctrl-C at the prompt ends the run (130) with echo restored")
    func promptInterrupted() throws {
        let run = try Terminal.run(["decrypt", Self.sealed], answers: ["\u{03}"])
        #expect(run.echo == [false])
        #expect(run.status == 130, "\(run.transcript)")
        #expect(run.echoAfter, "the terminal was left without echo")
    }
}

// MARK: - Binary never to a terminal

@Suite(.tags(.cli)) struct CLITerminalOutputTests {
    @Test("(pty) binary output to a terminal is refused (64, nothing written) unless -f/--force")
    func binaryToTerminal() throws {
        try withTemporaryDirectory { dir in
            _ = try binaryFile(dir.appendingPathComponent("photo.jpg"), count: 5000)
            #expect(try CLI.run(["encrypt", "--key", "k", "--binary", "-i", "photo.jpg", "-o", "photo.enc"],
                                directory: dir).status == 0)
            let commands = [["encrypt", "--key", "k", "--binary", "-i", "photo.jpg"],
                            ["decrypt", "--key", "k", "--binary", "-i", "photo.enc"],
                            ["gzip", "-i", "photo.jpg"],
                            ["message", "encrypt", "--key", "k", "--gzip", "--threshold", "0", "[1]"]]
            for command in commands {
                let refused = try Terminal.run(command, directory: dir)
                #expect(refused.status == 64, "\(command): \(refused.transcript)")
                #expect(refused.transcript == "pncrypt: refusing to write binary data to a terminal: redirect it, "
                        + "give -o PATH, or -f to force\r\n", "\(command)")
                for force in ["-f", "--force"] {
                    let forced = try Terminal.run(command + [force], directory: dir)
                    #expect(forced.status == 0, "\(command) \(force): \(forced.transcript)")
                    #expect(forced.transcript.utf8.count > 20, "\(command) \(force)")
                }
            }
            // Text output is not binary: it goes to the terminal as always.
            let text = try Terminal.run(["encrypt", "--key", "enigma", "--scheme", "legacy", "yay!"])
            #expect(text.transcript == "q/xJqqN6qbiZMXYmiQC1Fw==\r\n")
        }
    }
}

// MARK: - Exit codes

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

// MARK: - --on-error for unencrypted messages

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
        #expect(passthrough.stderr.hasSuffix("pncrypt: 1 of 2 messages not decrypted (see the status lines; "
                                             + "--allow-failures to exit 0)\n"), "\(passthrough.stderr)")
        let fail = try CLI.run(["history", "decrypt", "--key", "enigma", "--scheme", "legacy", "--on-error", "fail",
                                response])
        #expect(fail.status == 1)
        #expect(fail.text.isEmpty)
    }
}

// MARK: - Messages that point to the fix

@Suite(.tags(.cli)) struct CLIHelpfulMessageTests {
    @Test("message encrypt of text that is not JSON says a JSON string needs quotes")
    func jsonHint() throws {
        let result = try CLI.run(["message", "encrypt", "--key", "k", "hello"])
        #expect(result.status == 65)
        #expect(result.stderr == "pncrypt: invalid JSON at offset 0: expected a JSON value, found 'h'; "
                + "a JSON string needs its quotes: '\"hello\"'\n")
    }

    @Test("message decrypt accepts bare Base64 as the string it is")
    func bareBase64() throws {
        let result = try CLI.run(["message", "decrypt", "--key", "enigma", "06UDjczkvAAYcqWfNwkOiQ=="])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "\"Hello World\"\n")
    }

    @Test("a wrong --scheme names what the data is")
    func wrongScheme() throws {
        try withTemporaryDirectory { dir in
            try Data("a photo".utf8).write(to: dir.appendingPathComponent("photo"))
            #expect(try CLI.run(["encrypt", "--key", "k", "--binary", "-i", "photo", "-o", "photo.enc"],
                                directory: dir).status == 0)
            let text = try CLI.run(["encrypt", "--key", "k", "a message"]).text
            let expected = "pncrypt: decryption error: the data starts with a PNED header (cryptor ACRH): "
                + "it is acrh data, not legacy; read it with --scheme acrh or --scheme auto\n"
            for arguments in [["--binary", "-i", "photo.enc"], [text]] {
                let result = try CLI.run(["decrypt", "--key", "k", "--scheme", "legacy"] + arguments, directory: dir)
                #expect(result.status == 1)
                #expect(result.stderr == expected, "\(arguments)")
            }
        }
    }

    @Test("an unknown subcommand suggests the nearest one", arguments: [
        (["decrpyt"], "'decrypt'"), (["message", "decrpyt"], "'decrypt'"), (["gunzp"], "'gunzip'"),
    ])
    func nearestSubcommand(arguments: [String], suggestion: String) throws {
        let result = try CLI.run(arguments + ["x"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("did you mean \(suggestion)?"), "\(result.stderr)")
    }
}

// MARK: - Names and options

@Suite(.tags(.cli)) struct CLIOptionNameTests {
    @Test("-k is the short form of --key")
    func shortKey() throws {
        let result = try CLI.run(["decrypt", "-k", "enigma", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "yay!")
    }

    @Test("gzip -d decompresses, as gzip does")
    func gzipDecompress() throws {
        try withTemporaryDirectory { dir in
            let text = Array(String(repeating: "pncrypt ", count: 1000).utf8)
            try Data(text).write(to: dir.appendingPathComponent("t"))
            #expect(try CLI.run(["gzip", "-i", "t", "-o", "t.gz"], directory: dir).status == 0)
            for flag in ["-d", "--decompress"] {
                let result = try CLI.run(["gzip", flag, "-i", "t.gz"], directory: dir)
                #expect(result.status == 0, "\(flag): \(result.stderr)")
                #expect(Data(result.stdout) == Data(text), "\(flag)")
            }
        }
    }

    @Test("--sync without -o is a usage error", arguments: [
        ["encrypt", "--key", "k", "--sync", "x"], ["decrypt", "--key", "k", "--sync", "x"],
        ["gzip", "--sync", "x"], ["message", "encrypt", "--key", "k", "--sync", "1"],
    ])
    func syncNeedsOutput(arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(arguments)")
        #expect(result.stderr.contains("--sync goes with -o"), "\(result.stderr)")
        #expect(result.text.isEmpty)
    }

    @Test("diagnose is told the client's setting with --scheme and --legacy-scheme")
    func diagnoseClientSetting() throws {
        // `"yay!"` as the Python SDK publishes it with a random IV (a message: JSON text).
        let randomIV = "U2I4d2taMVpuUzg3TGsxZWSC2CBmYKimjM2id4+Y2Lk="
        let fixed = try CLI.run(["diagnose", "--key", "enigma", "--legacy-scheme", "legacy", randomIV])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.text.contains("a client set to --legacy-scheme legacy shows DECRYPTION_ERROR for it"),
                "\(fixed.text)")
        let random = try CLI.run(["diagnose", "--key", "enigma", "--legacy-scheme", "legacy-random-iv", randomIV])
        #expect(random.text.contains("a client set to --legacy-scheme legacy-random-iv reads it"), "\(random.text)")
        let acrh = try CLI.run(["diagnose", "--key", "enigma", "--scheme", "acrh", "--json", randomIV])
        let client = try #require(try JSONValue(parsing: acrh.stdout)["client"])
        #expect(client["scheme"] == "acrh")
        #expect(client["decrypts"] == false)
    }

    @Test("--raw has one meaning (gunzip's raw deflate); message encrypt's is --verbatim")
    func rawHasOneMeaning() throws {
        let text = #"{"b" : 1,  "a" : 2}"#
        let verbatim = try CLI.run(["message", "encrypt", "--key", "enigma", "--verbatim", text])
        #expect(verbatim.status == 0, "\(verbatim.stderr)")
        let opened = try CLI.run(["decrypt", "--key", "enigma"], stdin: verbatim.stdout)
        #expect(opened.text == text)
        let old = try CLI.run(["message", "encrypt", "--key", "enigma", "--raw", text])
        #expect(old.status == 64)
        for command in ["message encrypt", "gunzip"] {
            let help = try CLI.run(command.split(separator: " ").map(String.init) + ["--help"]).text
            #expect(help.contains("--raw") == (command == "gunzip"), "\(command)")
        }
    }

    @Test("--key-file is repeatable and the usage line says so")
    func keyFileUsage() throws {
        for command in [["encrypt"], ["decrypt"], ["message", "decrypt"], ["diagnose"], ["inspect"]] {
            let usage = try CLI.run(command + ["--help"]).text.split(separator: "\n")
                .first { $0.hasPrefix("USAGE:") } ?? ""
            #expect(usage.contains("[--key-file <path> ...]"), "\(command): \(usage)")
            #expect(usage.contains("[--key <key> ...]"), "\(command): \(usage)")
        }
    }
}

// MARK: - Help that survives copy and paste

@Suite(.tags(.cli)) struct CLIHelpTests {
    /// Every command path, from the SUBCOMMANDS sections of the help.
    static func commands(_ prefix: [String] = []) throws -> [[String]] {
        let help = try CLI.run(prefix + ["--help"]).text
        guard let section = help.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first else { return [prefix] }
        var found: [[String]] = [prefix]
        let lines = section.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
        for line in lines where line.hasPrefix("  ") && !line.hasPrefix("   ") {
            guard let name = line.split(separator: " ").first.map(String.init), name != "help",
                  name.allSatisfy({ $0.isLowercase }) else { continue }
            found += try commands(prefix + [name])
        }
        return found
    }

    @Test("every example in --help is one line of at most 80 columns", .tags(.slow), .notInQuickRun)
    func examplesFit() throws {
        let commands = try Self.commands()
        #expect(commands.count >= 11)
        var examples = 0
        for command in commands {
            let help = try CLI.run(command + ["--help"]).text
            guard let section = help.components(separatedBy: "Example").dropFirst().first else { continue }
            let lines = section.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
                .prefix { !$0.isEmpty }
            for line in lines {
                examples += 1
                #expect(line.count <= 80, "\(command): \(line)")
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                #expect(trimmed.hasPrefix("pncrypt ") || trimmed.hasPrefix("PNCRYPT_KEY="),
                        "\(command): a wrapped or continued example: \(line)")
                #expect(!trimmed.hasSuffix("\\"), "\(command): \(line)")
            }
        }
        #expect(examples >= 15)
    }

    @Test("the README tells how to install shell completion, and the script is generated")
    func completion() throws {
        let readme = try String(contentsOf: Package.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("## Shell completion"))
        for shell in ["bash", "zsh", "fish"] {
            #expect(readme.contains("pncrypt --generate-completion-script \(shell)"), "\(shell)")
            let script = try CLI.run(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.text.contains("pncrypt"))
        }
    }
}

// MARK: - Reports that say what they know

@Suite(.tags(.cli)) struct CLIHonestReportTests {
    @Test("inspect on headerless data says what it knows, and no more")
    func inspectHeaderless() throws {
        try withTemporaryDirectory { dir in
            _ = try binaryFile(dir.appendingPathComponent("random.bin"), count: 5_000_000)
            let result = try CLI.run(["inspect", "--binary", "random.bin"], directory: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let expected = "no PNED header; if this is pncrypt or PubNub ciphertext it is legacy data, 312500 blocks, "
                + "IV fixed or random"
            #expect(result.text.split(separator: "\n").first.map(String.init) == expected)
        }
        let one = try CLI.run(["inspect", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        let expected = "no PNED header; if this is pncrypt or PubNub ciphertext it is legacy data, 1 block, "
            + "IV fixed (too short for a random IV)"
        #expect(one.text.split(separator: "\n").first.map(String.init) == expected)
    }

    @Test("diagnose exits 1 when no reading works, 0 when one does")
    func diagnoseStatus() throws {
        let none = try CLI.run(["diagnose", "--key", "wrong", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(none.status == 1)
        #expect(none.text.contains("wrong key or corrupted"), "\(none.text)")
        let json = try CLI.run(["diagnose", "--key", "wrong", "--json", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(json.status == 1)
        #expect(try JSONValue(parsing: json.stdout)["decrypts"] == false)
        let one = try CLI.run(["diagnose", "--key", "enigma", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(one.status == 0)
    }

    @Test("diagnose --json leaves the plaintext out unless --show-plaintext")
    func diagnosePlaintext() throws {
        let hidden = try CLI.run(["diagnose", "--key", "enigma", "--json", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(hidden.status == 0)
        #expect(!hidden.text.contains("yay!"), "\(hidden.text)")
        #expect(try JSONValue(parsing: hidden.stdout)["decrypts"] == true)
        let shown = try CLI.run(["diagnose", "--key", "enigma", "--json", "--show-plaintext",
                                 "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(shown.text.contains(#""plaintext":"yay!""#), "\(shown.text)")
        let textMode = try CLI.run(["diagnose", "--key", "enigma", "--show-plaintext", "q/xJqqN6qbiZMXYmiQC1Fw=="])
        #expect(textMode.status == 64)
    }
}
