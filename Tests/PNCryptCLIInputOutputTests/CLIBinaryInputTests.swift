import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// Raw ciphertext given as text (issue 47, item 2; issue 55, item 1): a file an SDK's `encrypt_file` writes (acrh
/// `PNED...`, or raw legacy ciphertext) given to `decrypt`, `inspect` or `diagnose` with `-i` is read as it is (not
/// Base64-decoded), and without `--binary` still as text: a binary plaintext is refused with the one failure and a
/// hint naming `--binary`. A positional argument that names a file is refused with the option that reads it.
@Suite(.tags(.cli)) struct CLIBinaryInputTests {
    /// The plaintext (not text: a photo's bytes), and its file in `scheme` under key `k`, as the library writes it.
    static func encrypted(_ scheme: Scheme, in dir: URL) throws -> (plaintext: [UInt8], path: String) {
        let plaintext = try binaryFile(dir.appendingPathComponent("photo.jpg"), count: 70_000)
        let file = try CryptoModule(cipherKey: "k").encryptBinary(plaintext, scheme: scheme)
        let name = "photo-\(scheme.rawValue).enc"
        try Data(file).write(to: dir.appendingPathComponent(name))
        return (plaintext, name)
    }

    /// The options that read `scheme`'s file: a fixed-IV file of binary data needs --legacy-scheme legacy (the
    /// headerless rule reads it as legacy-random-iv otherwise, as `decrypt --binary` does).
    static func reading(_ scheme: Scheme) -> [String] {
        scheme == .legacy ? ["--legacy-scheme", "legacy"] : []
    }

    @Test("decrypt -i FILE: a binary plaintext needs --binary (one failure, one hint); --binary reads it exactly",
          arguments: [Scheme.acrh, .legacyRandomIV, .legacy])
    func decryptDetects(_ scheme: Scheme) throws {
        try withTemporaryDirectory { dir in
            let (plaintext, path) = try Self.encrypted(scheme, in: dir)
            let refused = try CLI.run(["decrypt", "--key", "k", "-i", path] + Self.reading(scheme), directory: dir)
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 2, "\(refused.stderr)")
            #expect(lines.first?.hasPrefix("pncrypt: decryption error: cannot decrypt") == true, "\(refused.stderr)")
            #expect(lines.last?.hasPrefix("pncrypt: hint: '\(path)' is raw ciphertext (") == true, "\(refused.stderr)")
            #expect(lines.last?.hasSuffix("needs --binary") == true, "\(refused.stderr)")
            let run = try CLI.run(["decrypt", "--key", "k", "--binary", "-i", path] + Self.reading(scheme),
                                  directory: dir)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == plaintext)
            // A headerless random-IV file gets --binary's own note on how it was read.
            #expect(run.stderr.split(separator: "\n").count == (scheme == .legacyRandomIV ? 1 : 0), "\(run.stderr)")
            // -o, as with --binary: the file in place, nothing on standard output.
            let out = try CLI.run(["decrypt", "--key", "k", "--binary", "-i", path, "-o", "back.jpg"]
                                  + Self.reading(scheme), directory: dir)
            #expect(out.status == 0, "\(out.stderr)")
            #expect(out.stdout.isEmpty)
            #expect(try Data(contentsOf: dir.appendingPathComponent("back.jpg")) == Data(plaintext))
        }
    }

    @Test("the hint says why the input is raw: a PNED header, or the first byte that cannot be Base64 text")
    func noteSaysWhy() throws {
        try withTemporaryDirectory { dir in
            let (_, acrh) = try Self.encrypted(.acrh, in: dir)
            let run = try CLI.run(["decrypt", "--key", "k", "-i", acrh], directory: dir)
            #expect(run.stderr.contains("it starts with a PNED header"), "\(run.stderr)")
            let file: [UInt8] = [0x41, 0x42, 0x01] + [UInt8](repeating: 0x41, count: 29)
            try Data(file).write(to: dir.appendingPathComponent("odd.bin"))
            let odd = try CLI.run(["decrypt", "--key", "k", "-i", "odd.bin"], directory: dir)
            #expect(odd.status == 1, "\(odd.stderr)")
            #expect(odd.stdout.isEmpty)
            #expect(odd.stderr.contains("byte 0x01 at offset 2 cannot be Base64 text"), "\(odd.stderr)")
        }
    }

    @Test("decrypt --gunzip needs --binary, whatever the input's encoding (a gzip plaintext is binary)")
    func gunzipDetected() throws {
        try withTemporaryDirectory { dir in
            let text = Array(String(repeating: "pncrypt ", count: 2000).utf8)
            try Data(text).write(to: dir.appendingPathComponent("log.txt"))
            #expect(try CLI.run(["gzip", "log.txt", "-o", "log.gz"], directory: dir).status == 0)
            #expect(try CLI.run(["encrypt", "--key", "k", "--binary", "log.gz", "-o", "log.enc"], directory: dir)
                .status == 0)
            let detected = try CLI.run(["decrypt", "--key", "k", "--gunzip", "-i", "log.enc"], directory: dir)
            #expect(detected.status == 64, "\(detected.stderr)")
            #expect(detected.stderr.hasPrefix("pncrypt: --gunzip needs --binary"), "\(detected.stderr)")
            let run = try CLI.run(["decrypt", "--key", "k", "--binary", "--gunzip", "-i", "log.enc"], directory: dir)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == text)
            let ciphertext = try CryptoModule(cipherKey: "k").encrypt(Array("x".utf8), scheme: .acrh)
            try Data(ciphertext.utf8).write(to: dir.appendingPathComponent("message.txt"))
            let textFile = try CLI.run(["decrypt", "--key", "k", "--gunzip", "-i", "message.txt"], directory: dir)
            #expect(textFile.status == 64, "\(textFile.stderr)")
            #expect(textFile.stderr.hasPrefix("pncrypt: --gunzip needs --binary"), "\(textFile.stderr)")
            let argument = try CLI.run(["decrypt", "--key", "k", "--gunzip", ciphertext], directory: dir)
            #expect(argument.status == 64, "\(argument.stderr)")
        }
    }

    @Test("a wrong key writes nothing (all or nothing, as --binary)")
    func wrongKeyWritesNothing() throws {
        try withTemporaryDirectory { dir in
            let (_, path) = try Self.encrypted(.acrh, in: dir)
            let run = try CLI.run(["decrypt", "--key", "wrong", "-i", path, "-o", "out.jpg"], directory: dir)
            #expect(run.status == 1, "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.jpg").path))
        }
    }

    @Test("on a terminal: a binary plaintext given raw is refused as text; --binary is refused without -f")
    func terminalRefused() throws {
        try withTemporaryDirectory { dir in
            let (_, path) = try Self.encrypted(.acrh, in: dir)
            let text = try Terminal.run(["decrypt", "--key", "k", "-i", path], directory: dir)
            #expect(text.status == 1, "\(text.transcript)")
            #expect(text.transcript.hasPrefix("pncrypt: decryption error: cannot decrypt"), "\(text.transcript)")
            #expect(text.transcript.contains("needs --binary"), "\(text.transcript)")
            let refused = try Terminal.run(["decrypt", "--key", "k", "--binary", "-i", path], directory: dir)
            #expect(refused.status == 64, "\(refused.transcript)")
            #expect(refused.transcript == "pncrypt: refusing to write binary data to a terminal: redirect it, "
                    + "give -o PATH, or -f to force\r\n")
            let forced = try Terminal.run(["decrypt", "--key", "k", "--binary", "-i", path, "-f"], directory: dir)
            #expect(forced.status == 0, "\(forced.transcript)")
        }
    }

    @Test("decrypt, inspect and diagnose refuse a positional file name that is not Base64, naming -i (exit 64)")
    func fileNameHint() throws {
        try withTemporaryDirectory { dir in
            let (_, path) = try Self.encrypted(.acrh, in: dir)
            for command in ["decrypt", "inspect", "diagnose"] {
                let run = try CLI.run([command, "--key", "k", path], directory: dir)
                #expect(run.status == 64, "\(command): \(run.stderr)")
                #expect(run.stdout.isEmpty)
                #expect(run.stderr == "pncrypt: '\(path)' is a file: give it with -i \(path) (or --binary for a "
                        + "binary file)\n", "\(command)")
            }
            // Valid Base64 that is also a file's name is still the text (the name is decrypted as asked).
            var base64 = try CryptoModule(cipherKey: "k").encrypt(Array("hi".utf8), scheme: .acrh)
            while base64.contains("/") {
                base64 = try CryptoModule(cipherKey: "k").encrypt(Array("hi".utf8), scheme: .acrh)
            }
            try Data("other".utf8).write(to: dir.appendingPathComponent(base64))
            let named = try CLI.run(["decrypt", "--key", "k", base64], directory: dir)
            #expect(named.status == 0, "\(named.stderr)")
            #expect(named.text == "hi")
        }
    }

    @Test("inspect -i reads raw ciphertext as it is: the same description as --binary, no note",
          arguments: [Scheme.acrh, .legacyRandomIV, .legacy])
    func inspectDetects(_ scheme: Scheme) throws {
        try withTemporaryDirectory { dir in
            let (_, path) = try Self.encrypted(scheme, in: dir)
            let detected = try CLI.run(["inspect", "-i", path], directory: dir)
            let binary = try CLI.run(["inspect", "--binary", path], directory: dir)
            #expect(detected.status == 0, "\(detected.stderr)")
            #expect(binary.status == 0, "\(binary.stderr)")
            #expect(detected.stdout == binary.stdout)
            #expect(detected.stderr.isEmpty, "\(detected.stderr)")
            // With a key, the plaintext is read as text: a binary one is the one failure and the hint.
            let keyed = try CLI.run(["inspect", "-k", "k", "-i", path], directory: dir)
            #expect(keyed.status == 1, "\(keyed.stderr)")
            #expect(keyed.stderr.contains("needs --binary"), "\(keyed.stderr)")
            let keyedBinary = try CLI.run(["inspect", "-k", "k", "--binary", path], directory: dir)
            #expect(keyedBinary.status == 0, "\(keyedBinary.stderr)")
            #expect(keyedBinary.text.hasSuffix("plaintext: not gzip\n"), "\(keyedBinary.text)")
            if scheme == .acrh { #expect(detected.text.contains("PNED"), "\(detected.text)") }
        }
    }

    @Test("diagnose --binary reads a binary file: which key and file format read it; -i alone reads it as text",
          arguments: [Scheme.acrh, .legacyRandomIV, .legacy])
    func diagnoseDetects(_ scheme: Scheme) throws {
        try withTemporaryDirectory { dir in
            let (_, path) = try Self.encrypted(scheme, in: dir)
            let text = try CLI.run(["diagnose", "--key", "k", "-i", path] + Self.reading(scheme), directory: dir)
            #expect(text.status == 1, "\(text.text)")
            #expect(text.text.contains("needs --binary"), "\(text.text)")
            let run = try CLI.run(["diagnose", "--binary", "--key", "wrong", "--key", "k", "-i", path]
                                  + Self.reading(scheme), directory: dir)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.text == "decrypts as a file with \(scheme.rawValue) and key #2 (the padding of its last block "
                    + "is valid; the file format has no other integrity check): pncrypt decrypt --binary reads it\n")
            #expect(run.stderr.isEmpty, "\(run.stderr)")
            let json = try CLI.run(["diagnose", "--binary", "--json", "--key", "k", "-i", path] + Self.reading(scheme),
                                   directory: dir)
            #expect(json.status == 0, "\(json.stderr)")
            #expect(json.text.contains("\"scheme\":\"\(scheme.rawValue)\""), "\(json.text)")
            let wrong = try CLI.run(["diagnose", "--binary", "--key", "wrong", "-i", path], directory: dir)
            #expect(wrong.status == 1, "\(wrong.stderr)")
            #expect(wrong.text.hasPrefix("no key and file format read it: "), "\(wrong.text)")
        }
    }

    @Test("diagnose takes a binary file of at most --max-input bytes, as any of its input")
    func diagnoseMaxInput() throws {
        try withTemporaryDirectory { dir in
            let (_, path) = try Self.encrypted(.acrh, in: dir)
            let run = try CLI.run(["diagnose", "--binary", "--key", "k", "--max-input", "64K", "-i", path],
                                  directory: dir)
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr == "pncrypt: '\(path)' is larger than 65536 bytes, the limit for input held in memory "
                    + "whole (--max-input SIZE raises it; --lines, where a command has it, reads any size)\n")
            let raised = try CLI.run(["diagnose", "--binary", "--key", "k", "--max-input", "1M", "-i", path],
                                     directory: dir)
            #expect(raised.status == 0, "\(raised.stderr)")
        }
    }

    @Test("a Base64 text file still reads as text (decrypt, inspect, diagnose), with no note")
    func textStaysText() throws {
        try withTemporaryDirectory { dir in
            let text = "\"" + (try CryptoModule(cipherKey: "k").encrypt(Array("\"hello\"".utf8), scheme: .acrh))
                + "\"\n"
            try Data(text.utf8).write(to: dir.appendingPathComponent("message.txt"))
            let decrypted = try CLI.run(["decrypt", "--key", "k", "-i", "message.txt"], directory: dir)
            #expect(decrypted.status == 0, "\(decrypted.stderr)")
            #expect(decrypted.text == "\"hello\"")
            #expect(decrypted.stderr.isEmpty)
            let inspected = try CLI.run(["inspect", "-i", "message.txt"], directory: dir)
            #expect(inspected.status == 0, "\(inspected.stderr)")
            #expect(inspected.stderr.isEmpty)
            let diagnosed = try CLI.run(["diagnose", "--key", "k", "-i", "message.txt"], directory: dir)
            #expect(diagnosed.status == 0, "\(diagnosed.stderr)")
            #expect(diagnosed.stderr.isEmpty)
            #expect(diagnosed.text.hasPrefix("decrypts with acrh"), "\(diagnosed.text)")
        }
    }
}
