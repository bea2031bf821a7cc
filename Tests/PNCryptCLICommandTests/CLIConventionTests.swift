import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI's small conventions (issue 47, item 5): several ciphertexts to `decrypt`, `decrypt --lines`, gzip's `-c`
/// and `--keep`, shell completion of paths and enum values, the hint for an unquoted line in `--lines` input.
@Suite(.tags(.cli)) struct CLIConventionTests {
    /// `plaintext` encrypted under key `k` as Base64 text.
    static func ciphertext(_ plaintext: String) throws -> String {
        try CryptoModule(cipherKey: "k").encrypt(Array(plaintext.utf8), scheme: .acrh)
    }

    @Test("decrypt with several ciphertexts writes one plaintext per line, in order")
    func severalCiphertexts() throws {
        let texts = ["\"one\"", "{\"two\":2}", "three"]
        let run = try CLI.run(["decrypt", "--key", "k"] + texts.map(Self.ciphertext))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == texts.joined(separator: "\n") + "\n")
        #expect(run.stderr.isEmpty)
    }

    @Test("decrypt with several ciphertexts writes nothing when one fails, and names it by position")
    func severalAllOrNothing() throws {
        let good = try Self.ciphertext("\"one\"")
        let wrongKey = try CryptoModule(cipherKey: "other").encrypt(Array("x".utf8), scheme: .acrh)
        let run = try CLI.run(["decrypt", "--key", "k", good, wrongKey, good])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("pncrypt: argument #2 of 3: "), "\(run.stderr)")
        let notBase64 = try CLI.run(["decrypt", "--key", "k", good, good, "not base64!"])
        #expect(notBase64.status == 1, "\(notBase64.stderr)")
        #expect(notBase64.stdout.isEmpty)
        #expect(notBase64.stderr.hasPrefix("pncrypt: argument #3 of 3: "), "\(notBase64.stderr)")
        // To a file: nothing is created.
        try withTemporaryDirectory { dir in
            let out = try CLI.run(["decrypt", "--key", "k", good, wrongKey, "-o", "out.txt"], directory: dir)
            #expect(out.status == 1)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.txt").path))
        }
        let binary = try CLI.run(["decrypt", "--key", "k", "--binary", "a", "b"])
        #expect(binary.status == 64, "\(binary.stderr)")
    }

    @Test("decrypt --lines is a usage error that names message decrypt --lines")
    func decryptLines() throws {
        let run = try CLI.run(["decrypt", "--key", "k", "--lines"], stdin: Array("\"x\"\n".utf8))
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("message decrypt --lines"), "\(run.stderr)")
    }

    @Test("gunzip and gzip accept -c/--stdout and -k/--keep, as gzip users type them")
    func gzipHabits() throws {
        try withTemporaryDirectory { dir in
            let text = Array(String(repeating: "pncrypt ", count: 500).utf8)
            try Data(text).write(to: dir.appendingPathComponent("t"))
            let packed = try CLI.run(["gzip", "-c", "-k", "t"], directory: dir)
            #expect(packed.status == 0, "\(packed.stderr)")
            try Data(packed.stdout).write(to: dir.appendingPathComponent("t.gz"))
            for flags in [["-c"], ["--stdout"], ["--keep"], ["-k"], ["-c", "--keep"], ["-ck"], ["-kc"]] {
                let run = try CLI.run(["gunzip"] + flags + ["t.gz"], directory: dir)
                #expect(run.status == 0, "\(flags): \(run.stderr)")
                #expect(run.stdout == text, "\(flags)")
                #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("t.gz").path))
            }
            let both = try CLI.run(["gunzip", "-c", "t.gz", "-o", "u"], directory: dir)
            #expect(both.status == 64, "\(both.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("u").path))
            // A command that takes a key keeps -k for it.
            let key = try CLI.run(["decrypt", "-k", "enigma", "q/xJqqN6qbiZMXYmiQC1Fw=="])
            #expect(key.text == "yay!", "\(key.stderr)")
        }
    }

    @Test("a --lines line that is not JSON from its first byte gets the hint that each line is one JSON text")
    func unquotedLineHint() throws {
        let hint = "; each line is one JSON text: a string message is \\\"...\\\" in quotes"
        let quoted = try Self.ciphertext("\"hi\"")
        let run = try CLI.run(["message", "decrypt", "--key", "k", "--lines"],
                              stdin: Array("hello\n\"\(quoted)\"\n{\"a\":\n".utf8))
        #expect(run.status == 1, "\(run.stderr)")
        let statuses = run.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        try #require(statuses.count == 2, "\(run.stderr)")
        #expect(statuses[0].contains("invalid JSON at offset 0") && statuses[0].contains(hint), "\(statuses[0])")
        // Not for JSON that fails later on: the hint would be wrong there.
        #expect(!statuses[1].contains(hint), "\(statuses[1])")
        #expect(run.text.split(separator: "\n").contains("\"hi\""), "\(run.text)")
    }

    /// The bash completion of `words` (the last is the word being completed), in `dir`: COMPREPLY, one a line.
    static func bashCompletion(_ words: [String], in dir: URL) throws -> [String] {
        let bash = try #require(findTool("bash"))
        let script = try CLI.run(["--generate-completion-script", "bash"])
        try #require(script.status == 0, "\(script.stderr)")
        let file = dir.appendingPathComponent("completion.bash")
        try Data(script.stdout).write(to: file)
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let driver = """
            source '\(file.path)'
            COMP_WORDS=(\(quoted))
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE="${COMP_WORDS[*]}"
            COMP_POINT=${#COMP_LINE}
            _pncrypt pncrypt "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let run = try runProcess(bash, ["-c", driver], directory: dir)
        try #require(run.status == 0, "\(run.stderr)")
        return run.text.split(separator: "\n").map(String.init)
    }

    @Test("bash completion offers the values of enum options and file names after path options")
    func bashCompletes() throws {
        try #require(findTool("bash") != nil, "bash is needed to run the completion script")
        try withTemporaryDirectory { dir in
            try Data("x".utf8).write(to: dir.appendingPathComponent("photo.enc"))
            let schemes = try Self.bashCompletion(["pncrypt", "decrypt", "--scheme", ""], in: dir)
            #expect(Set(schemes) == ["auto", "legacy", "legacy-random-iv", "acrh", "legacy33"], "\(schemes)")
            let legacy = try Self.bashCompletion(["pncrypt", "diagnose", "--legacy-scheme", ""], in: dir)
            #expect(Set(legacy) == ["legacy", "legacy-random-iv"], "\(legacy)")
            let onError = try Self.bashCompletion(["pncrypt", "message", "decrypt", "--on-error", ""], in: dir)
            #expect(Set(onError) == ["marker", "passthrough", "fail"], "\(onError)")
            for words in [["pncrypt", "decrypt", "-i", "ph"], ["pncrypt", "decrypt", "-o", "ph"],
                          ["pncrypt", "encrypt", "--key-file", "ph"], ["pncrypt", "gunzip", "--input", "ph"],
                          ["pncrypt", "message", "rekey", "--to-key-file", "ph"],
                          ["pncrypt", "conformance", "--junit", "ph"]] {
                let files = try Self.bashCompletion(words, in: dir)
                #expect(files == ["photo.enc"], "\(words): \(files)")
            }
        }
    }
}
