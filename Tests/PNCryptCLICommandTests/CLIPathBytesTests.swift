import Foundation
import Testing
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// Paths are exact bytes, from argv to the system call (issue 55, item 9): a path that is not UTF-8 names that
/// file, never the one its lossy decoding (U+FFFD) names, in every option and argument that takes a path. The
/// options are found in the command tree the binary reports (`CLISurfaceTests.commands()`): a path option added
/// without a way to feed it below fails `everyPathOptionIsExact` until it has one.
@Suite("CLI paths: the bytes given, in every path option")
struct CLIPathBytesTests {
    /// What each name below becomes with its bytes replaced by U+FFFD (the decoy a lossy decoding would open).
    static func decoy(_ name: String) -> String {
        name.replacingOccurrences(of: "\\377", with: "\u{FFFD}").replacingOccurrences(of: "\\376", with: "\u{FFFD}")
    }

    /// The bytes of `name`, a printf format with `\377` and `\376` escapes.
    static func bytes(_ name: String) -> [UInt8] {
        Array(name.replacingOccurrences(of: "\\377", with: "\u{1}").replacingOccurrences(of: "\\376", with: "\u{2}")
            .utf8).map { $0 == 1 ? 0xFF : $0 == 2 ? 0xFE : $0 }
    }

    /// The name as an error message shows it: `\xff`, `\xfe`.
    static func shown(_ name: String) -> String {
        name.replacingOccurrences(of: "\\377", with: "\\xff").replacingOccurrences(of: "\\376", with: "\\xfe")
    }

    /// The contents of the file `name` (bytes, not UTF-8) in `dir`, nil when there is none.
    static func contents(_ name: [UInt8], in dir: URL) -> [UInt8]? {
        let path = Array(dir.path.utf8) + [UInt8(ascii: "/")] + name
        let fd = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_RDONLY) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// Runs pncrypt in `dir` through a shell, so that argv holds bytes that are not UTF-8: each `$N1`, `$N2`, ... in
    /// `arguments` is the name `names[i]` (a printf format); `setup` runs first (shell lines, with the same names).
    static func run(_ arguments: [String], names: [String], setup: String = "", stdin: [UInt8] = [],
                    in dir: URL) throws -> ProcessResult {
        var script = ""
        for (index, name) in names.enumerated() { script += "N\(index + 1)=\"$(printf '\(name)')\"; " }
        script += setup + "exec \"$0\" " + arguments.map { argument in
            argument.hasPrefix("$N") || argument.contains("=$N") ? "\"\(argument)\""
                : "'" + argument.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }.joined(separator: " ")
        return try runProcess("/bin/sh", ["-c", script, CLI.binary.path], stdin: stdin,
                              environment: CLI.environment(), directory: dir)
    }

    @Test("decrypt --key-file KEY -i IN -o OUT reads and writes the files named by the bytes, not U+FFFD's")
    func issueExample() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (key, input, output) = (#"key\377"#, #"in\376.txt"#, #"out\377.txt"#)
        let real = try CryptoModule(key: try CipherKey("right"), scheme: .acrh).encrypt(Array("the real one".utf8))
        let decoy = try CryptoModule(key: try CipherKey("wrong"), scheme: .acrh).encrypt(Array("the decoy".utf8))
        try Data("right\n".utf8).write(to: dir.appendingPathComponent("key.real"))
        try Data(real.utf8).write(to: dir.appendingPathComponent("in.real"))
        // The decoys: what a lossy decoding of each name would open (a key and an input that decrypt together).
        try Data("wrong\n".utf8).write(to: dir.appendingPathComponent(Self.decoy(key)))
        try Data(decoy.utf8).write(to: dir.appendingPathComponent(Self.decoy(input)))
        try Data("decoy output\n".utf8).write(to: dir.appendingPathComponent(Self.decoy(output)))
        let result = try Self.run(["decrypt", "--key-file", "$N1", "-i", "$N2", "-o", "$N3"],
                                  names: [key, input, output], setup: "mv key.real \"$N1\"; mv in.real \"$N2\"; ",
                                  in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.contents(Self.bytes(output), in: dir) == Array("the real one".utf8))
        #expect(Self.contents(Array(Self.decoy(output).utf8), in: dir) == Array("decoy output\n".utf8),
                "the U+FFFD-named file was written")
    }

    @Test("-o naming another file than -i, where both decode to one name, is not refused as the input")
    func outputBesideInputOfTheSameDecoding() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try Self.run(["gzip", "-i", "$N1", "-o", "$N2"], names: [#"a\376"#, #"a\377"#],
                                  setup: "printf 'hello' > \"$N1\"; ", in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let written = try #require(Self.contents(Self.bytes(#"a\377"#), in: dir), "no output file")
        #expect(try Decompressor.decompress(written) == Array("hello".utf8))
    }

    @Test("-o over the input named by the same bytes is refused, the name escaped in the message")
    func outputOverInputRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try Self.run(["gzip", "-i", "$N1", "-o", "$N1"], names: [#"a\376"#],
                                  setup: "printf 'hello' > \"$N1\"; ", in: dir)
        #expect(result.status == 64 && result.stdout.isEmpty, "\(result.stderr)")
        #expect(result.stderr.contains(#"input file 'a\xfe'"#), "\(result.stderr)")
        #expect(Self.contents(Self.bytes(#"a\376"#), in: dir) == Array("hello".utf8))
    }

    @Test("two path arguments that differ only in bytes that are not UTF-8 are told apart by their order")
    func positionalsInOrder() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Both decode to `v\u{FFFD}`: the first is read first (missing, named exactly), the second never reached.
        let result = try Self.run(["vectors", "check", "$N1", "$N2"], names: [#"v\376"#, #"v\377"#], in: dir)
        #expect(result.status != 0 && result.stdout.isEmpty, "\(result.stderr)")
        #expect(result.stderr.contains(#"v\xfe"#), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{FFFD}"), "\(result.stderr)")
    }

    @Test("a path argument that cannot be told from an option's value of the same decoding is refused in one line")
    func ambiguousPositionalRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // After a flag, the argument could be the flag's value as far as the bytes show: which of the two is the
        // input is a guess, so the run refuses, naming both, and writes nothing.
        let result = try Self.run(["decrypt", "-k", "k", "--binary", "$N1", "-o", "$N2"],
                                  names: [#"a\376"#, #"a\377"#], setup: "printf 'x' > \"$N1\"; ", in: dir)
        #expect(result.status == 64 && result.stdout.isEmpty, "\(result.stderr)")
        #expect(result.stderr.contains(#"'a\xfe'"#) && result.stderr.contains(#"'a\xff'"#), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(Self.contents(Self.bytes(#"a\377"#), in: dir) == nil, "an output was written")
    }

    // MARK: - Every path option of the tree

    /// An option or positional argument takes a path when its value name says so (`path`, `channel=path`, `file`,
    /// `text-or-path`, `paths`).
    static func takesPath(_ valueName: String?) -> Bool {
        guard let name = valueName?.lowercased() else { return false }
        return name.contains("path") || name.contains("file")
    }

    /// Every (command, option) that takes a path; positionals as `#1`.
    static func pathOptions() throws -> [(command: [String], option: String)] {
        var found: [(command: [String], option: String)] = []
        for command in try CLISurfaceTests.commands() {
            for option in command.options where takesPath(option.valueName) {
                found.append((command.path, option.names.first(where: { $0.hasPrefix("--") }) ?? option.names[0]))
            }
            // With `--binary`, a command's TEXT argument is a file path (`decrypt --binary FILE`).
            let binary = command.options.contains { $0.names.contains("--binary") }
            if command.positionals.contains(where: { binary || takesPath($0) }) { found.append((command.path, "#1")) }
        }
        return found
    }

    /// An input each command takes and succeeds on (under the key `k`), written to `in.txt`.
    static func input(for command: String) throws -> [UInt8]? {
        let module = CryptoModule(key: try CipherKey("k"), scheme: .acrh)
        let text = try module.encrypt(Array("hello".utf8))
        return switch command {
        case "encrypt", "gzip": Array("hello".utf8)
        case "decrypt", "inspect", "diagnose": Array(text.utf8)
        case "message encrypt": Array(#""hello""#.utf8)
        case "message decrypt", "message rekey": Array(#""\#(try module.encrypt(Array(#""hi""#.utf8)))""#.utf8)
        case "history decrypt", "history rekey": Array(#"{"channels":{}}"#.utf8)
        case "subscribe decrypt", "subscribe rekey": Array(#"{"t":{},"m":[]}"#.utf8)
        case "gunzip": try Compressor.compress(Array("hello".utf8))
        case "conformance", "vectors check": []
        default: nil
        }
    }

    /// A conformance peer that says hello and nothing more.
    static let helloPeer = #"printf '{"ok":true,"name":"x","version":"1","ops":[],"schemes":[]}\n'; sleep 5"#

    /// How to give `option` of `command` a path (`$N1`) the run reads (`reads`) or writes; the other arguments
    /// make the run succeed (the key `k`, the input `in.txt`).
    static func feed(_ command: [String], _ option: String) -> (arguments: [String], reads: Bool)? {
        let name = command.joined(separator: " ")
        let key = ["-k", "k"]
        let input = ["-i", "in.txt"]
        let base: [String]? = switch name {
        case "encrypt", "decrypt", "inspect", "diagnose", "message encrypt", "message decrypt", "history decrypt",
             "subscribe decrypt": key + input
        case "message rekey", "history rekey", "subscribe rekey": key + ["--to-key", "t"] + input
        case "gzip", "gunzip": input
        case "conformance": ["--peer", helloPeer, "--timeout", "1"]
        case "vectors check": []
        default: nil
        }
        guard var arguments = base else { return nil }
        switch option {
        case "--input":
            arguments.removeLast(2)
            return (command + arguments + ["-i", "$N1"], true)
        case "#1":
            if let index = arguments.firstIndex(of: "-i") { arguments.removeSubrange(index...(index + 1)) }
            let binary = ["encrypt", "decrypt", "inspect", "diagnose"].contains(name) ? ["--binary"] : []
            return (command + arguments + binary + ["$N1"], true)
        case "--key-file", "--to-key-file":
            let given = option == "--key-file" ? "-k" : "--to-key"
            if let index = arguments.firstIndex(of: given) { arguments.removeSubrange(index...(index + 1)) }
            return (command + arguments + [option, "$N1"], true)
        case "--channel-key-file":
            arguments.removeSubrange(0...1)
            // A record export's channels (message decrypt|rekey): the records' message field is named.
            let records = command.first == "message" ? ["--field", "/message"] : []
            return (command + arguments + records + [option, "*=$N1"], true)
        case "--output", "--junit":
            return (command + arguments + [option, "$N1"], false)
        case "--statuses":
            return (command + arguments + ["--lines", option, "$N1"], false)
        default:
            return nil
        }
    }

    @Test("the path options found are the ones this suite feeds (a new one fails here until it is added above)")
    func pathOptionsAreKnown() throws {
        let options = Set(try Self.pathOptions().map(\.option))
        #expect(options == ["--input", "#1", "--key-file", "--to-key-file", "--channel-key-file", "--output",
                            "--statuses", "--junit"])
    }

    /// Every path option of every command, given a name that is not UTF-8 (`p\376` read, `p\377` written) with a
    /// decoy file at its U+FFFD name: an input that is missing is named exactly (escaped) and exits 66; an output
    /// that is a folder is refused naming it exactly; the decoy is never read nor replaced, and standard output
    /// stays empty.
    @Test("every path option of every command: a name that is not UTF-8 names that file, shown escaped")
    func everyPathOptionIsExact() throws {
        let options = try Self.pathOptions()
        #expect(options.count > 20, "\(options.count) path options found")
        for (command, option) in options {
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            guard let fed = Self.feed(command, option) else {
                Issue.record("no way to feed \(command.joined(separator: " ")) \(option)")
                continue
            }
            let name = fed.reads ? #"p\376"# : #"p\377"#
            let decoy = dir.appendingPathComponent(Self.decoy(name))
            try Data("decoy\n".utf8).write(to: decoy)
            try Data(try #require(try Self.input(for: command.joined(separator: " ")))).write(
                to: dir.appendingPathComponent("in.txt"))
            // A written path names a folder: the output is refused, naming it.
            let setup = fed.reads ? "" : "mkdir \"$N1\"; "
            let run = try Self.run(fed.arguments, names: [name], setup: setup, in: dir)
            let what = "\(command.joined(separator: " ")) \(option)"
            if command == ["conformance"] && option == "#1" {
                // A vector path that is not there is a failed check of the report, named as the bytes say.
                #expect(run.status == 1 && run.text.contains("\(Self.shown(name)): no vector file or folder there"),
                        "\(what): \(run.status) \(run.text) \(run.stderr)")
                #expect(!run.text.contains("\u{FFFD}"), "\(what): \(run.text)")
                continue
            }
            #expect(run.status != 0 && run.stdout.isEmpty, "\(what): \(run.status) \(run.stderr)")
            if fed.reads { #expect(run.status == 66, "\(what): \(run.status) \(run.stderr)") }
            #expect(run.stderr.contains(Self.shown(name)), "\(what): \(run.stderr)")
            #expect(!run.stderr.contains("\u{FFFD}"), "\(what): \(run.stderr)")
            #expect(try Data(contentsOf: decoy) == Data("decoy\n".utf8), "\(what): the decoy was replaced")
        }
    }
}
