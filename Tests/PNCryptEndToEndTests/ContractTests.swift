import Foundation
import Testing
import PNCryptCore
import PNCryptVectors
import PNCryptTestSupport
import PNCryptCLITestSupport

/// PubNub's cross-SDK crypto module contract scenarios (`Vectors/contract.json`), through the command line: the
/// library runs them in `TestVectorTests`; here each row runs as a user would, and its outcome category is read
/// from the one-line error (`pncrypt: decryption error: ...`).
@Suite struct ContractTests {
    static let vectors: [TestVector] = (try? Package.vectors("contract.json", as: TestVector.self)) ?? []

    @Test("the contract file holds every example row of the feature file")
    func everyRow() throws {
        #expect(Self.vectors.count == 44)
        let scenarios = Set(Self.vectors.compactMap(\.scenario))
        #expect(scenarios.count == 6)
    }

    @Test("every contract scenario row passes through the CLI, outcome categories included",
          arguments: ContractTests.vectors.map(\.id))
    func throughCLI(id: String) throws {
        let v = try #require(Self.vectors.first { $0.id == id })
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // One-shot rows run in text mode (Base64), stream rows with --binary on a file.
        let stream = v.mode == "stream"
        let file = dir.appendingPathComponent("input")
        var reading = ["--scheme", v.scheme]
        switch v.legacyScheme {
        case "none"?: reading = ["--scheme", "acrh"]  // a module with only the acrh cryptor
        case let legacy?: reading += ["--legacy-scheme", legacy]
        case nil: break
        }
        let plaintext = try v.plaintextBytes() ?? []
        switch v.expect {
        case .encryptionError:
            try Data(plaintext).write(to: file)
            let result = try CLI.run(["encrypt", "--key", v.key, "--scheme", v.scheme]
                                     + (stream ? ["--binary", "-i", file.path] : []), stdin: plaintext)
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("pncrypt: encryption error: "), "\(result.stderr)")
        case .ok where v.scheme != "auto":
            // "I encrypt the file": with the SDK's IV the bytes are the SDK's; "legacy code" reads them back.
            try Data(plaintext).write(to: file)
            let sealed = try CLI.run(["encrypt", "--key", v.key, "--scheme", v.scheme, "--iv", try #require(v.iv),
                                      "--binary", "-i", file.path])
            #expect(sealed.status == 0, "\(sealed.stderr)")
            #expect(Base64.encode(sealed.stdout) == v.ciphertext)
            try Data(sealed.stdout).write(to: file)
            let opened = try CLI.run(["decrypt", "--key", v.key, "--scheme", v.scheme, "--binary", "-i", file.path])
            #expect(opened.stdout == plaintext, "\(opened.stderr)")
        default:
            let ciphertext = try #require(v.ciphertext)
            try Data(try Base64.decode(ciphertext)).write(to: file)
            let result = stream
                ? try CLI.run(["decrypt", "--key", v.key, "--binary", "-i", file.path] + reading)
                : try CLI.run(["decrypt", "--key", v.key, ciphertext] + reading)
            switch v.expect {
            case .ok where !stream && String(validating: plaintext, as: UTF8.self) == nil:
                // Text mode delivers only text (valid padding and UTF-8, the one decision procedure): a binary
                // plaintext is refused there; the library reads it as bytes, the file format with --binary.
                #expect(result.status == 1)
                #expect(result.stdout.isEmpty)
                var scheme = v.scheme == "auto" ? nil : Scheme(rawValue: v.scheme)
                var legacy: Scheme?
                switch v.legacyScheme {
                case "none"?: scheme = .acrh
                case let name?: legacy = Scheme(rawValue: name)
                case nil: break
                }
                let match = try KeyRing([v.key]).decrypt(try Base64.decode(ciphertext),
                                                         reading: ReadPolicy(scheme: scheme, legacyScheme: legacy),
                                                         content: .bytes)
                #expect(match.plaintext == plaintext)
            case .ok:
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout == plaintext)
            case .decryptionError, .unknownCryptor:
                let category = v.expect == .unknownCryptor ? "unknown cryptor" : "decryption error"
                #expect(result.status == 1)
                #expect(result.stdout.isEmpty)
                #expect(result.stderr.hasPrefix("pncrypt: \(category): "), "\(result.stderr)")
            case .encryptionError: break
            }
        }
    }
}
