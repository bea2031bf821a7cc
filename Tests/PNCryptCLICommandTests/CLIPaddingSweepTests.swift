import Foundation
import Testing
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// The padding sweep of `PaddingSweepTests` through the command (docs/security.md, "What success and failure
/// reveal"): the last byte of the block before the last takes each of its 256 values, and every run that fails
/// must fail with the one decryption failure (exit 1, the same words), whatever the padding gave.
@Suite(.tags(.cli)) struct CLIPaddingSweepTests {
    /// A JSON text of three blocks, encrypted under `key` in `scheme`, and the 256 changed ciphertexts.
    static func sweep(_ scheme: Scheme, key: String = "sweep-key") throws -> [[UInt8]] {
        let plaintext = Array(#"{"text":"a padding sweep, three blocks"}"#.utf8)
        let sealed = try CryptoModule(cipherKey: key).encryptBinary(plaintext, scheme: scheme)
        let position = sealed.count - 17
        return (0...255).map { value in
            var changed = sealed
            changed[position] = UInt8(value)
            return changed
        }
    }

    static let oneFailure = "cannot decrypt: wrong key, wrong scheme, or corrupt data"

    @Test("message decrypt --lines: every line that fails is wrongKeyOrCorrupt, in auto mode and named",
          arguments: [Scheme.acrh, .legacy, .legacyRandomIV])
    func messageLines(scheme: Scheme) throws {
        let lines = try Self.sweep(scheme).map { "\"" + Base64.encode($0) + "\"\n" }.joined()
        for named in [[], ["--scheme", scheme.rawValue]] {
            // Every status is in the --statuses file (stderr holds the first 20).
            let (result, kept) = try withTemporaryDirectory { dir in
                let result = try CLI.run(["message", "decrypt", "--lines", "-k", "sweep-key", "--allow-failures",
                                          "--statuses", "statuses.ndjson"] + named, stdin: Array(lines.utf8),
                                         directory: dir)
                return (result, try String(contentsOf: dir.appendingPathComponent("statuses.ndjson"),
                                           encoding: .utf8))
            }
            #expect(result.status == 0, "\(result.stderr)")
            let statuses = kept.split(separator: "\n")
            let reasons = Set(statuses.compactMap { line -> String? in
                guard let value = try? JSONValue(parsing: Array(line.utf8)) else { return "unparsed" }
                return value["reason"]?.stringValue
            })
            #expect(reasons == ["wrongKeyOrCorrupt"], "\(scheme) \(named): \(reasons)")
            // The unchanged ciphertext is among them, and only it decrypts as a message.
            #expect(statuses.count == 255, "\(scheme) \(named): \(statuses.count) failed")
        }
    }

    @Test("decrypt (text) and decrypt --binary (bytes): one failure, the same words, auto and named",
          .tags(.slow), .notInQuickRun)
    func textAndBytes() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("sweep.bin")
            // One scheme through the command (a process a value, auto and named, text and bytes: 1,024 runs); the
            // library's sweep (PaddingSweepTests) and the C and Python ones take every scheme.
            for scheme in [Scheme.legacy] {
                var succeeded = (text: 0, bytes: 0)
                for changed in try Self.sweep(scheme) {
                    for named in [[String](), ["--scheme", scheme.rawValue]] {
                        let text = try CLI.run(["decrypt", "-k", "sweep-key", Base64.encode(changed)] + named)
                        if text.status == 0 {
                            succeeded.text += 1
                        } else {
                            #expect(text.status == 1 && text.stderr.contains(Self.oneFailure), "\(text.stderr)")
                        }
                        try Data(changed).write(to: file)
                        let bytes = try CLI.run(["decrypt", "--binary", "-k", "sweep-key", "-i", file.path,
                                                 "-o", "/dev/null"] + named)
                        if bytes.status == 0 {
                            succeeded.bytes += 1
                        } else {
                            #expect(bytes.status == 1 && bytes.stderr.contains(Self.oneFailure), "\(bytes.stderr)")
                        }
                    }
                }
                // Auto and named alike: the unchanged ciphertext as text; it and the value giving 01 as bytes.
                #expect(succeeded.text == 2, "\(scheme): \(succeeded)")
                #expect(succeeded.bytes == 4, "\(scheme): \(succeeded)")
            }
        }
    }
}
