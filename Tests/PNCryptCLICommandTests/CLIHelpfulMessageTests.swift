import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The CLI as Unix users expect it (each suite runs the built binary): messages that point to the fix.
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

    @Test("every command that takes TEXT refuses a file name given as TEXT (a forgotten -i), exit 64")
    func forgottenInputOption() throws {
        try withTemporaryDirectory { dir in
            try Data("{\"message\":\"x\"}\n".utf8).write(to: dir.appendingPathComponent("export.ndjson"))
            var covered: [String] = []
            for command in try CLISurfaceTests.commands() {
                let name = command.path.joined(separator: " ")
                guard command.positionals.contains(where: { $0.hasPrefix("text") }) else { continue }
                // encrypt's TEXT is its plaintext: any text is one, a file's name too (textModeKeepsText).
                if name == "encrypt" { continue }
                let names = command.options.flatMap(\.names)
                var arguments = command.path + ["-k", "k"]
                if names.contains("--to-key") { arguments += ["--to-key", "k2"] }
                // Line mode too, where it is a choice (`decrypt --lines` is a usage error naming message decrypt).
                for lines in command.path.count == 2 && names.contains("--lines") ? [[], ["--lines"]] : [[]] {
                    let result = try CLI.run(arguments + lines + ["export.ndjson"], directory: dir)
                    #expect(result.status == 64, "\(name) \(lines): \(result.stderr)")
                    #expect(result.stderr.hasPrefix("pncrypt: 'export.ndjson' is a file: give it with -i "
                                                    + "export.ndjson"), "\(name) \(lines): \(result.stderr)")
                    #expect(result.stdout.isEmpty, "\(name)")
                }
                covered.append(name)
            }
            #expect(Set(["decrypt", "inspect", "diagnose", "message encrypt", "message decrypt", "message rekey",
                         "history decrypt", "history rekey", "subscribe decrypt", "subscribe rekey"])
                        .isSubset(of: covered), "\(covered)")
            // TEXT that is what the command reads stays TEXT, even when a file has that name.
            try Data("not this".utf8).write(to: dir.appendingPathComponent("\"Hello World\""))
            let message = try CLI.run(["message", "encrypt", "-k", "enigma", "--scheme", "legacy", "\"Hello World\""],
                                      directory: dir)
            #expect(message.text == "\"06UDjczkvAAYcqWfNwkOiQ==\"\n", "\(message.stderr)")
        }
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

    @Test("--scheme acrh on legacy data names the options that read it")
    func acrhOnLegacyData() throws {
        try withTemporaryDirectory { dir in
            try Data("a photo".utf8).write(to: dir.appendingPathComponent("photo"))
            #expect(try CLI.run(["encrypt", "--key", "k", "--scheme", "legacy", "--binary", "-i", "photo",
                                 "-o", "photo.enc"], directory: dir).status == 0)
            let text = try CLI.run(["encrypt", "--key", "k", "--scheme", "legacy-random-iv", "a message"]).text
            let expected = "pncrypt: unknown cryptor: no PNED header: this is legacy data (or not ciphertext), and"
                + " acrh reads only data with a header; read legacy data with --scheme auto (the default) or"
                + " --scheme legacy / legacy-random-iv\n"
            for arguments in [["--binary", "-i", "photo.enc"], [text]] {
                let result = try CLI.run(["decrypt", "--key", "k", "--scheme", "acrh"] + arguments, directory: dir)
                #expect(result.status == 1)
                #expect(result.stderr == expected, "\(arguments)")
                #expect(result.stdout.isEmpty)
                // And the option it names reads it.
                let auto = try CLI.run(["decrypt", "--key", "k"] + arguments, directory: dir)
                #expect(auto.status == 0, "\(auto.stderr)")
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
