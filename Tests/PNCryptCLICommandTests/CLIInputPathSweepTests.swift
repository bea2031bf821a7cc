import Foundation
import Testing
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// Input detection decides the encoding, never the content check (issue 55, item 1): for every input path of every
/// command that decrypts data given as text or a file (`decrypt`, `diagnose`, `inspect`: an argument, `-i` with
/// Base64, `-i` with raw ciphertext, standard input), the padding sweep gives text mode's figures unless `--binary`:
/// of the last byte of the block before the last, only the unchanged ciphertext decrypts (as text, the value that
/// gives valid padding with garbage does not), and every failure is the same. Each run is a process, so the values
/// run are the ones the padding decides (the library, as bytes, finds them: the unchanged one and the one whose
/// garbage ends in 01) and three whose padding is invalid; `fullSweep` runs all 256 on the raw path.
@Suite(.tags(.cli)) struct CLIInputPathSweepTests {
    static let key = "sweep-key"
    static let schemes: [Scheme] = [.acrh, .legacy, .legacyRandomIV]

    /// The 256 changed ciphertexts of a three-block JSON text (as `CLIPaddingSweepTests.sweep`), the values whose
    /// padding is valid, and the unchanged value.
    static func sweep(_ scheme: Scheme) throws -> (all: [[UInt8]], valid: [Int], original: Int) {
        let plaintext = Array(#"{"text":"a padding sweep, three blocks"}"#.utf8)
        let sealed = try CryptoModule(cipherKey: key).encryptBinary(plaintext, scheme: scheme)
        let position = sealed.count - 17
        let all = (0...255).map { value -> [UInt8] in
            var changed = sealed
            changed[position] = UInt8(value)
            return changed
        }
        let module = try CryptoModule(cipherKey: key)
        let valid = all.indices.filter { (try? module.decryptBinary(all[$0], reading: .only(scheme))) != nil }
        return (all, valid, Int(sealed[position]))
    }

    /// The commands with a `--binary` flag that read data with a key (`encrypt` aside), from the command tree: each
    /// must be in `commands`, so a new one is swept too.
    static let commands = ["decrypt", "diagnose", "inspect"]

    enum Path: String, CaseIterable {
        case argument, base64File = "-i Base64", rawFile = "-i raw", stdin
    }

    /// `command` on `ciphertext` given by `path`, with `extra` options.
    static func run(_ command: String, _ path: Path, _ ciphertext: [UInt8], in dir: URL, extra: [String] = [])
        throws -> CLI.Result {
        let base = [command, "-k", key] + extra
        let file = dir.appendingPathComponent("input")
        switch path {
        case .argument:
            return try CLI.run(base + [Base64.encode(ciphertext)])
        case .base64File:
            try Data((Base64.encode(ciphertext) + "\n").utf8).write(to: file)
            return try CLI.run(base + ["-i", file.path])
        case .rawFile:
            try Data(ciphertext).write(to: file)
            return try CLI.run(base + ["-i", file.path])
        case .stdin:
            return try CLI.run(base, stdin: Array((Base64.encode(ciphertext) + "\n").utf8))
        }
    }

    @Test("the commands that read data with a key and take --binary are the ones swept")
    func commandsFromTheTree() throws {
        let found = try CLISurfaceTests.commands().filter { command in
            let names = Set(command.options.flatMap(\.names))
            return command.path.count == 1 && names.contains("--binary") && names.contains("--key")
                && command.path != ["encrypt"]
        }.map { $0.path.joined(separator: " ") }
        #expect(Set(found) == Set(Self.commands), "\(found)")
    }

    @Test("every input path of decrypt, diagnose and inspect: text's figures (only the unchanged ciphertext)",
          arguments: commands)
    func everyInputPath(command: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for scheme in Self.schemes {
            let (all, valid, original) = try Self.sweep(scheme)
            try #require(valid.count == 2 && valid.contains(original), "\(scheme): \(valid) have valid padding")
            let invalid = Array(all.indices.filter { !valid.contains($0) }.prefix(3))
            for path in Path.allCases {
                var successes: [Int] = []
                var failures: Set<String> = []
                for value in valid + invalid {
                    let run = try Self.run(command, path, all[value], in: dir)
                    if run.status == 0 {
                        successes.append(value)
                    } else {
                        #expect(run.status == 1, "\(command) \(path.rawValue) \(scheme) \(value): \(run.stderr)")
                        // The same answer whatever the padding gave (diagnose explains, with the key: its exit).
                        failures.insert(command == "diagnose" ? "exit 1" : run.stderr)
                    }
                }
                #expect(successes == [original], "\(command) \(path.rawValue) \(scheme): \(successes) succeeded")
                #expect(failures.count == 1, "\(command) \(path.rawValue) \(scheme): \(failures)")
                if path == .rawFile && command != "diagnose" {
                    #expect(failures.first?.contains("--binary") == true, "\(command) \(scheme): \(failures)")
                }
            }
            // --binary reads the raw file as bytes: the padding decides (decrypt and diagnose; inspect --binary
            // checks no padding).
            for binary in ["decrypt", "diagnose"] where binary == command {
                var successes = 0
                for value in valid + invalid {
                    let extra = command == "decrypt" ? ["--binary", "-o", "/dev/null"] : ["--binary"]
                    if try Self.run(command, .rawFile, all[value], in: dir, extra: extra).status == 0 { successes += 1 }
                }
                #expect(successes == 2, "\(command) --binary \(scheme): \(successes)")
            }
        }
    }

    @Test("decrypt -i with raw ciphertext: the whole sweep, 1 success in 256 in every scheme (was 2)",
          .tags(.slow), .notInQuickRun)
    func fullSweep() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for scheme in Self.schemes {
            var successes = 0
            var failures: Set<String> = []
            for changed in try Self.sweep(scheme).all {
                let run = try Self.run("decrypt", .rawFile, changed, in: dir)
                if run.status == 0 { successes += 1 } else { failures.insert("\(run.status) \(run.stderr)") }
            }
            #expect(successes == 1, "\(scheme): \(successes) of 256")
            #expect(failures.count == 1, "\(scheme): \(failures)")
        }
    }

    @Test("a binary plaintext given raw without --binary: the one failure and one hint naming --binary")
    func binaryPlaintextRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plaintext = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        try Data(try CryptoModule(cipherKey: Self.key).encryptBinary(plaintext, scheme: .acrh))
            .write(to: dir.appendingPathComponent("photo.enc"))
        let refused = try CLI.run(["decrypt", "-k", Self.key, "-i", "photo.enc"], directory: dir)
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(refused.stderr)")
        #expect(lines.first?.contains("cannot decrypt: wrong key, wrong scheme, or corrupt data") == true)
        let hint = "pncrypt: hint: 'photo.enc' is raw ciphertext (it starts with a PNED header), decrypted as text "
            + "as every input is without --binary: a binary plaintext (a file an SDK's encrypt_file wrote) needs "
            + "--binary"
        #expect(String(lines.last ?? "") == hint, "\(refused.stderr)")
        // A wrong key gets the same two lines: the hint tells nothing about which check failed.
        let wrong = try CLI.run(["decrypt", "-k", "wrong", "-i", "photo.enc"], directory: dir)
        #expect(wrong.status == 1)
        #expect(wrong.stderr == refused.stderr)
        let binary = try CLI.run(["decrypt", "-k", Self.key, "--binary", "-i", "photo.enc"], directory: dir)
        #expect(binary.status == 0, "\(binary.stderr)")
        #expect(binary.stdout == plaintext)
    }
}
