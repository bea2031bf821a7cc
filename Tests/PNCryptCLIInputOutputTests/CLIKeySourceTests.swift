import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI as Unix users expect it (each suite runs the built binary): keys come from anywhere a secret comes from.
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
                let opened = try? CryptoModule(cipherKey: "enigma").decryptBytes(text, reading: .only(.legacy))
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
