import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

// Every key source of the CLI hands over the exact bytes (a key that is not UTF-8 is refused, never decoded
// lossily), and a key of an unusual shape is named when decryption fails.

/// Runs `pncrypt` through `/bin/sh`, for arguments and environment values that are not UTF-8 (a Swift `String`
/// cannot hold them): `script` sees the binary as `$0`, and `\377`-style escapes are made with printf.
private func shell(_ script: String, directory: URL? = nil) throws -> CLI.Result {
    try CLI.run(["-c", script, CLI.binary.path], directory: directory, executable: "/bin/sh")
}

@Suite(.tags(.cli)) struct CLIKeyBytesTests {
    static let usageLine = "the cipher key is not valid UTF-8"

    @Test("a key that is not UTF-8 is refused (64) from --key, --key=, -k, PNCRYPT_KEY and rekey's keys")
    func invalidKeysRefused() throws {
        let sources: [(script: String, source: String)] = [
            (#""$0" encrypt --key "$(printf 'k\377')" hello"#, "--key"),
            (#""$0" encrypt --key="$(printf 'k\376')" hello"#, "--key"),
            (#""$0" encrypt -k "$(printf 'k\376')" hello"#, "--key"),
            (#""$0" decrypt -k enigma -k "$(printf '\377')" q/xJqqN6qbiZMXYmiQC1Fw=="#, "--key #2"),
            (#"PNCRYPT_KEY="$(printf 'k\377')" "$0" encrypt hello"#, "PNCRYPT_KEY"),
            (#"PNCRYPT_KEY="$(printf 'k\377')" "$0" message decrypt '"06UDjczkvAAYcqWfNwkOiQ=="'"#, "PNCRYPT_KEY"),
            (#""$0" message rekey --key enigma --to-key "$(printf '\376')" '"06UDjczkvAAYcqWfNwkOiQ=="'"#,
             "--to-key"),
            (#"PNCRYPT_TO_KEY="$(printf '\376')" "$0" message rekey -k enigma '"06UDjczkvAAYcqWfNwkOiQ=="'"#,
             "PNCRYPT_TO_KEY"),
        ]
        for (script, source) in sources {
            let result = try shell(script)
            #expect(result.status == 64, "\(script): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(script)")
            #expect(result.stderr.hasPrefix("pncrypt: \(source): \(Self.usageLine) (byte "),
                    "\(script): \(result.stderr)")
        }
    }

    @Test("\\xff and \\xfe are not one key (both refused), and exact UTF-8 keys stay distinct")
    func lossyKeysAreNotOneKey() throws {
        // Before, both decoded to U+FFFD: the same ciphertext came out for the two keys.
        for byte in ["\\377", "\\376"] {
            let result = try shell(#""$0" encrypt --scheme legacy --key "$(printf '"# + byte + #"')" hello"#)
            #expect(result.status == 64 && result.stdout.isEmpty, "\(byte): \(result.stderr)")
        }
        // Precomposed and decomposed é are different bytes, so different keys, as every SDK takes them.
        let composed = try shell(#""$0" encrypt --scheme legacy --key "$(printf 'h\303\251')" hello"#)
        let decomposed = try shell(#""$0" encrypt --scheme legacy --key "$(printf 'he\314\201')" hello"#)
        #expect(composed.status == 0 && decomposed.status == 0)
        #expect(composed.stdout != decomposed.stdout)
        let expected = try CryptoModule(key: CipherKey(bytes: [0x68, 0xC3, 0xA9])).encrypt(Array("hello".utf8),
                                                                                           scheme: .legacy)
        #expect(composed.text == expected + "\n")
    }

    @Test("a failed decryption names a key file with a BOM, white space or a line break, not the key")
    func shapeHintOnFailure() throws {
        try withTemporaryDirectory { dir in
            let cases: [(bytes: [UInt8], hint: String)] = [
                (Array("enigma \n".utf8), "the key ends with white space"),
                ([0xEF, 0xBB, 0xBF] + Array("enigma\n".utf8), "the key starts with a byte order mark (U+FEFF)"),
                (Array("enigma\n\n".utf8), "the key ends with a line break"),
                (Array(" enigma".utf8), "the key starts with white space"),
            ]
            for (bytes, hint) in cases {
                try Data(bytes).write(to: dir.appendingPathComponent("k.key"))
                let expected = "pncrypt: hint: key file 'k.key': \(hint) (keys are used exactly as given)\n"
                for command in [["decrypt", "q/xJqqN6qbiZMXYmiQC1Fw=="],
                                ["message", "decrypt", "--scheme", "legacy", "\"06UDjczkvAAYcqWfNwkOiQ==\""]] {
                    let result = try CLI.run(command + ["--key-file", "k.key"], directory: dir)
                    #expect(result.status == 1, "\(command): \(result.stderr)")
                    #expect(result.stderr.hasSuffix(expected), "\(command): \(result.stderr)")
                    #expect(!result.stderr.contains("enigma"))
                }
                let diagnosis = try CLI.run(["diagnose", "--key-file", "k.key", "q/xJqqN6qbiZMXYmiQC1Fw=="],
                                            directory: dir)
                #expect(diagnosis.text.contains("key file 'k.key': \(hint)"), "\(diagnosis.text)")
                let json = try CLI.run(["diagnose", "--json", "--key-file", "k.key", "q/xJqqN6qbiZMXYmiQC1Fw=="],
                                       directory: dir)
                #expect(json.text.contains(#""keyShapes":["key file 'k.key': \#(hint)"]"#), "\(json.text)")
            }
            // An ordinary key file: no hint; one final newline is not part of the key.
            try Data("enigma\n".utf8).write(to: dir.appendingPathComponent("k.key"))
            let fine = try CLI.run(["decrypt", "--key-file", "k.key", "q/xJqqN6qbiZMXYmiQC1Fw=="], directory: dir)
            #expect(fine.status == 0 && fine.text == "yay!" && fine.stderr.isEmpty)
            let wrong = try CLI.run(["decrypt", "--key", "wrong", "q/xJqqN6qbiZMXYmiQC1Fw=="], directory: dir)
            #expect(wrong.status == 1 && !wrong.stderr.contains("hint"))
        }
    }
}
