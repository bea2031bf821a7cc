import Foundation
import Testing
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI's promises proven over its whole surface, enumerated from the command tree the binary itself reports
/// (`--experimental-dump-help`, swift-argument-parser's description of every command and option): a command or a
/// key option added without an entry below fails these tests until it has one.
@Suite("CLI surface: every command and key source")
struct CLISurfaceTests {
    /// Every leaf command of the tree (`message decrypt`, `gunzip`, ...) and every option of each, as the binary
    /// describes them.
    struct Command {
        var path: [String]
        /// Each option's names, value name and help text (its abstract).
        var options: [(names: [String], valueName: String?, help: String)]
        /// The value names of its positional arguments (`text`, `text-or-path`, `path`).
        var positionals: [String] = []
    }

    static func commands() throws -> [Command] {
        let result = try CLI.run(["--experimental-dump-help"])
        try #require(result.status == 0, "\(result.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        var found: [Command] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let subcommands = command["subcommands"] as? [[String: Any]] ?? []
            if subcommands.isEmpty {
                let arguments = command["arguments"] as? [[String: Any]] ?? []
                let options = arguments.compactMap { argument -> (names: [String], valueName: String?, help: String)? in
                    let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                        guard let kind = name["kind"] as? String, let text = name["name"] as? String else { return nil }
                        return kind == "short" ? "-" + text : "--" + text
                    }
                    return names.isEmpty ? nil
                        : (names, argument["valueName"] as? String, argument["abstract"] as? String ?? "")
                }
                let positionals = arguments.compactMap { argument -> String? in
                    argument["kind"] as? String == "positional" ? argument["valueName"] as? String : nil
                }
                found.append(Command(path: path, options: options, positionals: positionals))
            }
            for sub in subcommands { walk(sub, path + [sub["commandName"] as? String ?? "?"]) }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return found
    }

    // MARK: - Attacker bytes on a terminal

    /// Bytes that command a terminal: OSC (retitle), CSI (clear), BEL, a C1 CSI in UTF-8, DEL.
    static let attack: [UInt8] = Array("hi \u{1b}]0;pwned\u{07} \u{1b}[2J \u{9b}31m \u{7f} end".utf8)

    /// One run of an attack: its arguments, and what the terminal must show when it works (that the run reached
    /// the code it attacks: the hostile plaintext decrypted and shown escaped, say), nil when nothing particular.
    struct Attack: ExpressibleByArrayLiteral, Sendable {
        var arguments: [String]
        var shows: String?
        init(_ arguments: [String], shows: String?) {
            self.arguments = arguments
            self.shows = shows
        }
        init(arrayLiteral arguments: String...) {
            self.init(arguments, shows: nil)
        }
    }

    /// `attack` decrypted and shown on a terminal by `decrypt` (`\xNN`) and in JSON (`\u00NN`).
    static let attackEscaped = #"hi \x1b]0;pwned\x07 \x1b[2J \xc2\x9b31m \x7f end"#
    static let attackInJSON = #""hi \u001b]0;pwned\u0007 \u001b[2J \u009b31m \u007f end""#

    /// For each command, runs that make it write or name data it did not make: decrypted or decompressed bytes,
    /// lines copied from the input, vectors' ids and file names, arguments. `@NAME` is a file of the fixture.
    static let attacks: [String: [Attack]] = [
        "encrypt": [["-k", "k", "-i", "@A"], ["-k", "k", "\u{1b}[2J"]],
        "decrypt": [Attack(["-k", "k", "-i", "@CT-TEXT"], shows: attackEscaped), ["-k", "k", "-i", "@A"],
                    ["-k", "k", "\u{1b}[2J"]],
        "inspect": [Attack(["-k", "k", "-i", "@CT-TEXT"], shows: "plaintext: not gzip"), ["-i", "@A"]],
        "diagnose": [Attack(["-k", "k", "-i", "@CT-TEXT"], shows: "decrypts with acrh and key #1"),
                     Attack(["--json", "--show-plaintext", "-k", "k", "-i", "@CT-TEXT"],
                            shows: #""plaintext":"# + attackInJSON),
                     Attack(["-k", "k2", "-i", "@CT-TEXT"], shows: "wrong key or corrupted"),
                     ["-k", "k", "-i", "@A"]],
        "message encrypt": [["-k", "k", "-i", "@RAWJ"], ["-k", "k", "-i", "@A"]],
        "message decrypt": [Attack(["-k", "k", "-i", "@MSG"], shows: attackInJSON),
                            ["-k", "k", "--lines", "-i", "@RAWJ"],
                            ["-k", "k", "--on-error", "passthrough", "-i", "@RAWJ"]],
        "message rekey": [["-k", "k", "--to-key", "k3", "-i", "@RAWJ"], ["-k", "k", "--to-key", "k3", "-i", "@REC"]],
        "history decrypt": [Attack(["-k", "k", "-i", "@HIST"], shows: "[[" + attackInJSON + "," + attackInJSON),
                            ["-k", "k", "--lines", "-i", "@REC"]],
        "history rekey": [["-k", "k", "--to-key", "k3", "-i", "@HIST-RAW"],
                          ["-k", "k", "--to-key", "k3", "--lines", "-i", "@RAWJ"]],
        "subscribe decrypt": [Attack(["-k", "k", "-i", "@SUB"], shows: #""d":"# + attackInJSON),
                              ["-k", "k", "--lines", "-i", "@REC"]],
        "subscribe rekey": [["-k", "k", "--to-key", "k3", "-i", "@SUB-RAW"]],
        "gzip": [["-d", "@A.gz"], ["-d", "@A"]],
        "gunzip": [["@A.gz"], ["@A"]],
        "vectors check": [["@vectors"]],
        "help": [["\u{1b}]0;x\u{07}"], ["decrypt", "\u{1b}[2J"]],
        // A peer is another program: its name, version and answers are its own bytes, as are the vectors' ids.
        "conformance": [["--peer", peerWritingControls, "--timeout", "1", "@vectors"]],
    ]

    /// A conformance peer whose hello names it with control characters, whose one answer is garbage, and which
    /// then writes an escape sequence where an answer should be.
    static let peerWritingControls = #"printf '{"ok":true,"name":"x\\u001b]0;pwned\\u0007","version":"\\u009b1","#
        + #""ops":["decrypt"],"schemes":["legacy"]}\n{"ok":true,"data_b64":"G1sySg=="}\n\033[2J garbage\n'; sleep 5"#

    /// Writes the fixture's files into `dir`.
    static func fixture(in dir: URL) throws {
        func write(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: dir.appendingPathComponent(name))
        }
        let key = try CipherKey("k")
        let module = CryptoModule(key: key, scheme: .acrh)
        let crypto = MessageCrypto(keys: try KeyRing(keys: [key]), scheme: .acrh)
        let text = String(decoding: attack, as: UTF8.self)
        let message = String(decoding: try crypto.encrypt(JSONValue.string(text)).serialized(), as: UTF8.self)
        // A JSON string may hold DEL and C1 raw (only C0 must be escaped): such input is copied by the commands
        // that cannot change it.
        let rawString = "\"raw \u{9b}31m \u{7f} end\""
        try write("A", attack)
        try write("CT-TEXT", Array(try module.encrypt(attack).utf8))
        try write("MSG", Array((message + "\n").utf8))
        try write("RAWJ", Array((rawString + "\n" + rawString + "\n").utf8))
        try write("REC", Array("{\"channel\":\"c\u{9b}\",\"message\":\(rawString)}\n".utf8))
        try write("HIST", Array("[[\(message),\(message)],1,2]".utf8))
        try write("HIST-RAW", Array("[[\(message),\(rawString)],1,2]".utf8))
        try write("SUB", Array("{\"t\":{\"t\":\"1\",\"r\":1},\"m\":[{\"c\":\"ch\",\"d\":\(message)}]}".utf8))
        try write("SUB-RAW", Array("{\"t\":{\"t\":\"1\",\"r\":1},\"m\":[{\"c\":\"ch\",\"d\":\(rawString)}]}".utf8))
        try write("A.gz", try Compressor.compress(attack))
        let vectors = dir.appendingPathComponent("vectors")
        try FileManager.default.createDirectory(at: vectors, withIntermediateDirectories: true)
        let vector = """
            {"description": "x", "vectors": [{"id": "id\\u001b]0;x\\u0007 \\u009b", "scheme": "legacy", "key": "k", \
            "plaintext": "a", "ciphertext": "AAAAAAAAAAAAAAAAAAAAAA==", "expect": "ok"}]}
            """
        try Data(vector.utf8).write(to: vectors.appendingPathComponent("v\u{1b}[2J\u{9b}.json"))
    }

    /// The control characters a terminal acts on, in what a run wrote to it: C0 but newline, carriage return
    /// (the terminal's own line ends) and tab; DEL; C1; and bytes that are not UTF-8 (a lone 0x9B is CSI on an
    /// 8-bit terminal).
    /// The one control sequence the CLI writes itself: a progress line's "erase to the end of the line" (CSI K).
    static func controls(in bytes: [UInt8]) -> [String] {
        guard let written = String(validating: bytes, as: UTF8.self) else { return ["bytes that are not UTF-8"] }
        let text = written.replacing("\u{1b}[K", with: "")
        return text.unicodeScalars.enumerated().compactMap { offset, scalar in
            let value = scalar.value
            let control = (value < 0x20 && ![0x0A, 0x0D, 0x09].contains(value)) || (0x7F...0x9F).contains(value)
            return control ? "U+\(String(value, radix: 16, uppercase: true)) at scalar \(offset)" : nil
        }
    }

    /// Runs `pncrypt arguments` with standard output and standard error on a pseudo-terminal and standard input
    /// from /dev/null; returns the exit status and every byte the terminal received.
    static func onTerminal(_ arguments: [String], in dir: URL) throws -> (status: Int32, bytes: [UInt8]) {
        let python = try #require(findTool("python3"), "the terminal tests need python3")
        let driver = """
            import base64, json, os, pty, sys
            spec = json.loads(sys.argv[1])
            pid, fd = pty.fork()
            if pid == 0:
                os.chdir(spec["cwd"])
                null = os.open("/dev/null", os.O_RDONLY)
                os.dup2(null, 0)
                os.execv(spec["argv"][0], spec["argv"])
            out = b""
            while True:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                out += data
            _, status = os.waitpid(pid, 0)
            print(json.dumps({"status": os.waitstatus_to_exitcode(status), "out": base64.b64encode(out).decode()}))
            """
        let spec: [String: Any] = ["argv": [CLI.binary.path] + arguments, "cwd": dir.path]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let result = try runProcess(python, ["-c", driver, json], environment: CLI.environment())
        try #require(result.status == 0, "the terminal driver failed: \(result.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let bytes = try #require(Data(base64Encoded: answer["out"] as? String ?? ""))
        return (Int32(answer["status"] as? Int ?? -1), Array(bytes))
    }

    @Test("every command of the tree has attacks in the table, and the table names only commands of the tree")
    func everyCommandHasAttacks() throws {
        let paths = Set(try Self.commands().map { $0.path.joined(separator: " ") })
        #expect(paths.count >= 15, "\(paths)")
        for path in paths.sorted() {
            #expect(!(Self.attacks[path] ?? []).isEmpty,
                    "'pncrypt \(path)' has no attack in CLISurfaceTests.attacks: add the runs that make it write data")
        }
        for path in Self.attacks.keys.sorted() {
            #expect(paths.contains(path), "CLISurfaceTests.attacks names '\(path)', which is not a command")
        }
    }

    @Test("(pty) no command writes a control character it did not make to a terminal, on stdout or stderr",
          arguments: attacks.keys.sorted())
    func attackerBytesOnTerminal(command: String) throws {
        try withTemporaryDirectory { dir in
            try Self.fixture(in: dir)
            for attack in try #require(Self.attacks[command]) {
                let arguments = (command == "help" ? ["help"] : command.split(separator: " ").map(String.init))
                    + attack.arguments.map {
                        $0.hasPrefix("@") ? dir.appendingPathComponent(String($0.dropFirst())).path : $0
                    }
                let run = try Self.onTerminal(arguments, in: dir)
                #expect(run.status != 128 + SIGSEGV && run.status < 128, "\(arguments): status \(run.status)")
                if let shown = attack.shows {
                    // The run reached the code it attacks: the terminal shows what that code makes of the attack.
                    #expect(String(decoding: run.bytes, as: UTF8.self).contains(shown), """
                        pncrypt \(arguments.joined(separator: " ")) did not show \(shown.debugDescription): \
                        \(String(decoding: run.bytes.prefix(300), as: UTF8.self).debugDescription)
                        """)
                }
                let found = Self.controls(in: run.bytes)
                #expect(found.isEmpty, """
                    pncrypt \(arguments.joined(separator: " ")) wrote \(found) to the terminal: \
                    \(String(decoding: run.bytes.prefix(300), as: UTF8.self).debugDescription)
                    """)
            }
        }
    }

    // MARK: - One declaration an option

    /// The options spelled alike in several commands that mean different things there, each with why; every other
    /// option is declared once (one option group), so it has one help text wherever it appears.
    static let differentByCommand: [String: String] = [
        "--binary": "encrypt and decrypt write or read a file format; inspect and diagnose read one",
        "--gzip": "encrypt compresses a file; message encrypt writes a compressed publish body",
        "--json": "conformance writes its report as JSON; diagnose its diagnosis",
        "--lines": "decrypt has it only to point at message decrypt --lines",
        "--scheme": "the commands that encrypt name the scheme to write; those that decrypt what to read",
        "--style": "message encrypt writes the message before encryption; the decrypting commands write the result",
    ]

    /// Each long option of the tree (`commands()`) with the help texts it has, and the commands it is in.
    static func helpTexts() throws -> [String: (texts: Set<String>, commands: Set<String>)] {
        var found: [String: (texts: Set<String>, commands: Set<String>)] = [:]
        for command in try commands() {
            for option in command.options {
                guard let long = option.names.first(where: { $0.hasPrefix("--") }),
                      long != "--help", long != "--version" else { continue }
                found[long, default: ([], [])].texts.insert(option.help + "|" + (option.valueName ?? ""))
                found[long, default: ([], [])].commands.insert(command.path.joined(separator: " "))
            }
        }
        return found
    }

    @Test("an option in several commands is declared once (one help text), unless listed as meaning different things")
    func optionsDeclaredOnce() throws {
        let options = try Self.helpTexts()
        #expect(options["--on-error"]?.commands.count == 6 && options["--legacy-scheme"]?.commands.count == 8,
                "the walk finds the options shared by the reading commands")
        for (long, found) in options.sorted(by: { $0.key < $1.key }) where found.texts.count > 1 {
            #expect(Self.differentByCommand[long] != nil, """
                \(long) has \(found.texts.count) help texts in \(found.commands.sorted()): declare it once (an option \
                group in Sources/pncrypt/Options/), or list it in differentByCommand with why it differs
                """)
        }
        for long in Self.differentByCommand.keys {
            #expect((options[long]?.texts.count ?? 0) > 1, "\(long) is listed as differing but has one help text")
        }
    }

    // MARK: - Key sources

    /// Every way a key reaches the CLI, found in the tree: the options whose value is a key (`--key`, `--to-key`)
    /// or a key file (`--key-file`, `--to-key-file`), and every environment variable with KEY in its name that the
    /// help names (a key, a key file, channel keys: whatever it holds).
    static func keySources() throws -> (flags: Set<String>, files: Set<String>, variables: Set<String>) {
        var flags = Set<String>()
        var files = Set<String>()
        for command in try commands() {
            for option in command.options {
                guard let long = option.names.first(where: { $0.hasPrefix("--") }) else { continue }
                if option.valueName == "key" { flags.insert(long) }
                if long.hasSuffix("key-file") { files.insert(long) }
            }
        }
        let help = String(decoding: try CLI.run(["--experimental-dump-help"]).stdout, as: UTF8.self)
        return (flags, files, keyVariables(in: help))
    }

    /// The environment variables `help` names that have to do with keys: `PNCRYPT_KEY`, and also
    /// `PNCRYPT_KEY_FILE`, `PNCRYPT_CHANNEL_KEYS` or the like, should one be added.
    static func keyVariables(in help: String) -> Set<String> {
        Set(help.matches(of: /PNCRYPT_[A-Z0-9_]+/).map { String($0.output) }.filter { $0.contains("KEY") })
    }

    @Test("the walk finds every key variable a help text names, a key file's too")
    func keyVariablesFound() {
        let help = "a key: -k, PNCRYPT_KEY or PNCRYPT_KEY_FILE (PNCRYPT_TO_KEY, PNCRYPT_TO_KEY_FILE); "
            + "PNCRYPT_PROGRESS_INTERVAL; channels: PNCRYPT_CHANNEL_KEYS."
        #expect(Self.keyVariables(in: help) == ["PNCRYPT_KEY", "PNCRYPT_KEY_FILE", "PNCRYPT_TO_KEY",
                                                "PNCRYPT_TO_KEY_FILE", "PNCRYPT_CHANNEL_KEYS"])
    }

    @Test("the key sources found are the ones this suite feeds (a new one fails here until it is added below)")
    func keySourcesAreKnown() throws {
        let sources = try Self.keySources()
        #expect(sources.flags == ["--key", "--to-key"])
        #expect(sources.files == ["--key-file", "--to-key-file", "--channel-key-file"])
        #expect(sources.variables == ["PNCRYPT_KEY", "PNCRYPT_TO_KEY"])
    }

    /// A run that reads a key from `source` with the bytes `key`: the command and its environment.
    static func keyRun(_ source: String, _ key: [UInt8], in dir: URL) throws
        -> (arguments: [String], environment: [String: String], via: String) {
        let file = dir.appendingPathComponent("key")
        try Data(key).write(to: file)
        let message = ["message", "rekey", "-i", "/dev/null"]
        switch source {
        case "--key-file": return (["decrypt", "--key-file", file.path, "AAAA"], [:], "key file")
        case "--to-key-file": return (message + ["-k", "k", "--to-key-file", file.path], [:], "key file")
        case "--channel-key-file":
            return (["history", "decrypt", "--channel-key-file", "ch=" + file.path, #"{"channels":{}}"#], [:],
                    "channel key file")
        case "--key", "--to-key", "PNCRYPT_KEY", "PNCRYPT_TO_KEY":
            // Through a shell, so that the bytes reach argv and the environment exactly (invalid UTF-8 too).
            return (source.hasPrefix("--") ? (source == "--key" ? ["decrypt", "--key", "$KEY", "AAAA"]
                                                                : message + ["-k", "k", "--to-key", "$KEY"])
                        : (source == "PNCRYPT_KEY" ? ["decrypt", "AAAA"] : message + ["-k", "k"]),
                    source.hasPrefix("--") ? [:] : [source: "$KEY"], source)
        default:
            Issue.record("no way to feed \(source)")
            return ([], [:], source)
        }
    }

    @Test("every key source refuses the same bad keys with the library's one validation (exit 64, naming the source)",
          arguments: ["--key", "--key-file", "--to-key", "--to-key-file", "--channel-key-file", "PNCRYPT_KEY",
                      "PNCRYPT_TO_KEY"])
    func everyKeySourceOneValidation(source: String) throws {
        try withTemporaryDirectory { dir in
            // What each refusal says comes from CipherKey itself: the same words for every source.
            let cases: [([UInt8], String)] = [([0x6B, 0xFF, 0x6B], "not valid UTF-8"),
                                              ([0x6B, 0x00, 0x6B], "NUL character"), ([], "empty")]
            for (key, expected) in cases {
                // argv and the environment cannot hold a NUL byte: only files (and the prompt) can.
                if key.contains(0) && !source.hasSuffix("key-file") { continue }
                let run = try Self.keyRun(source, key, in: dir)
                let script = "KEY=\"$(cat key)\"; " + (run.environment.isEmpty ? "" : run.environment.map {
                    "export \($0.key)=\"\($0.value)\"; "
                }.joined()) + "exec \"$0\" " + run.arguments.map { $0 == "$KEY" ? "\"$KEY\"" : "'\($0)'" }
                    .joined(separator: " ")
                let result = try runProcess("/bin/sh", ["-c", script, CLI.binary.path], environment: CLI.environment(),
                                            directory: dir)
                #expect(result.status == 64, "\(source) with \(key): status \(result.status), \(result.stderr)")
                #expect(result.stderr.contains(expected), "\(source) with \(key): \(result.stderr)")
            }
        }
    }

    @Test("(pty) the prompt refuses a key with a NUL character, as every other source")
    func promptRefusesNUL() throws {
        let run = try Terminal.run(["decrypt", "AAAAAAAAAAAAAAAAAAAAAA=="], answers: ["k\u{0}k\n"])
        #expect(run.status == 64, "\(run.transcript)")
        #expect(run.transcript.contains("NUL character"), "\(run.transcript)")
    }

    @Test("the same key twice, from any two sources, is refused before any work, naming both (exit 64)")
    func sameKeyTwice() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("k.key")
            try Data("enigma\n".utf8).write(to: file)
            for arguments in [["-k", "enigma", "-k", "enigma"], ["-k", "enigma", "--key-file", file.path],
                              ["--key-file", file.path, "-k", "other", "--key-file", file.path]] {
                let result = try CLI.run(["decrypt"] + arguments + ["q/xJqqN6qbiZMXYmiQC1Fw=="])
                #expect(result.status == 64, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("is the same key as") && result.stderr.contains("give each key once"),
                        "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
            // One channel's keys are a ring too; two channels may share a key.
            let v3 = #"{"channels":{"a":[],"b":[]}}"#
            let twice = try CLI.run(["history", "decrypt", "--channel-key-file", "a=" + file.path,
                                     "--channel-key-file", "a=" + file.path, v3])
            #expect(twice.status == 64 && twice.stdout.isEmpty, "\(twice.stderr)")
            #expect(twice.stderr.contains("is the same key as") && twice.stderr.contains("give each key once")
                        && twice.stderr.contains("channel key file 'a="), "\(twice.stderr)")
            let shared = try CLI.run(["history", "decrypt", "--channel-key-file", "a=" + file.path,
                                      "--channel-key-file", "b=" + file.path, v3])
            #expect(shared.status == 0, "\(shared.stderr)")
            // The library's rule, which the CLI's message names in its own terms.
            #expect(throws: PNCryptError.self) { try KeyRing(["a", "b", "a"]) }
        }
    }

    @Test("every key file option: a missing file exits 66 naming it, with nothing on standard output")
    func everyKeyFileMissing() throws {
        try withTemporaryDirectory { dir in
            let missing = dir.appendingPathComponent("no-such.key").path
            for option in try Self.keySources().files.sorted() {
                let arguments: [String] = switch option {
                case "--key-file": ["decrypt", "--key-file", missing, "AAAA"]
                case "--to-key-file": ["message", "rekey", "-i", "/dev/null", "-k", "k", "--to-key-file", missing]
                case "--channel-key-file": ["subscribe", "decrypt", "--channel-key-file", "*=" + missing,
                                            #"{"t":{},"m":[]}"#]
                default: []
                }
                #expect(!arguments.isEmpty, "no way to feed \(option)")
                guard !arguments.isEmpty else { continue }
                let run = try CLI.run(arguments)
                #expect(run.status == 66 && run.stdout.isEmpty, "\(option): \(run.status) \(run.stderr)")
                #expect(run.stderr.contains("no-such.key"), "\(option): \(run.stderr)")
            }
        }
    }

    // MARK: - -o and standard input

    @Test("-o naming the file standard input is read from is refused (64) and the file is unchanged")
    func outputOverStandardInput() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("f")
            let ciphertext = try CryptoModule(key: try CipherKey("k"), scheme: .acrh)
                .encryptBinary(Array("secret".utf8))
            try Data(ciphertext).write(to: file)
            let link = dir.appendingPathComponent("link")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
            for (arguments, output) in [(["decrypt", "--binary", "-k", "k", "-"], "f"),
                                        (["decrypt", "--binary", "-k", "k"], "link"),
                                        (["encrypt", "--binary", "-k", "k"], "f"), (["gunzip"], "f")] {
                let script = "exec \"$0\" \"$@\" < f"
                let result = try runProcess("/bin/sh", ["-c", script, CLI.binary.path] + arguments + ["-o", output],
                                            environment: CLI.environment(), directory: dir)
                #expect(result.status == 64, "\(arguments) -o \(output): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains("refusing to write the output over the input file"), "\(result.stderr)")
                #expect(try Data(contentsOf: file) == Data(ciphertext), "\(arguments): the input was changed")
            }
        }
    }
}
