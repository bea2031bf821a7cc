import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// Decryption is trusted only when it is certain: a plaintext only when exactly one (key, scheme) reading
/// qualifies, and one public failure whatever check failed.
@Suite struct DecryptionTrustTests {
    static let wrongKeys = (0..<10_000).map { "wrong key \($0)" }

    @Test("auto on random-IV legacy text gives the plaintext, not 16 bytes of garbage before it (CLI)")
    func autoOnRandomIVText() throws {
        let randomIVYay = try Package.specCiphertext("spec-legacy-random-iv-yay")
        let fooBar = try Package.specCiphertext("spec-legacy-foo-bar")
        let result = try CLI.run(["decrypt", "--key", "enigma", randomIVYay])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "yay!")
        // Fixed-IV text of two blocks or more reads both ways as text: the headerless rule takes the fixed-IV
        // reading (it is one JSON text, its cut is not), with nothing on standard error.
        let both = try CLI.run(["decrypt", "--key", "enigma", fooBar])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(both.text == #"{"foo":{"bar":"foobar"}}"#)
        #expect(both.stderr.isEmpty)
        let chosen = try CLI.run(["decrypt", "--key", "enigma", "--legacy-scheme", "legacy", fooBar])
        #expect(chosen.text == #"{"foo":{"bar":"foobar"}}"#)
    }

    @Test("10,000 wrong keys in front of the right one: the right plaintext, as text and as a message",
          .tags(.slow), .notInQuickRun)
    func tenThousandWrongKeys() throws {
        let ring = try KeyRing(Self.wrongKeys + ["right key"])
        let right = try CryptoModule(cipherKey: "right key")
        let text = Array("a message long enough that garbage is never valid UTF-8".utf8)
        let iv = [UInt8](repeating: 0x5A, count: 16)
        for scheme in [Scheme.legacyRandomIV, .acrh] {
            let sealed = try right.encryptBinary(text, scheme: scheme, iv: iv)
            let match = try ring.decrypt(sealed, content: .text)
            #expect(match.plaintext == text)
            #expect(match.keyIndex == Self.wrongKeys.count)
            #expect(match.scheme == scheme)
        }
        // Messages: the fixed IV too, both legacy readings tried with every key.
        let crypto = MessageCrypto(keys: ring)
        for scheme in [Scheme.legacy, .legacyRandomIV, .acrh] {
            let sent = try MessageCrypto(cipherKey: "right key", scheme: scheme).encrypt(["text": "hello, world"])
            let received = crypto.decrypt(sent, policy: .marker)
            #expect(received.status == nil, "\(scheme): \(received.status?.error.message ?? "")")
            #expect(received.message == ["text": "hello, world"])
            #expect(received.keyIndex == Self.wrongKeys.count)
        }
        // Among 10,000 wrong keys some pass the padding check alone: as bytes, that is ambiguous, never garbage.
        let sealed = try right.encryptBinary(text, scheme: .legacy)
        let asBytes = expectPNError { () throws(PNCryptError) in try ring.decrypt(sealed, reading: .only(.legacy)) }
        #expect(asBytes?.code == .ambiguous)
    }

    @Test("1,000 files with a random wrong key first: the right plaintext or 'ambiguous', never garbage (CLI)",
          .tags(.slow, .cli), .notInQuickRun)
    func binaryWrongKeyFirst() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let sealed = dir.appendingPathComponent("sealed")
        let enc = try CLI.run(["encrypt", "--key", "right", "--binary", "--scheme", "legacy-random-iv",
                               "-o", sealed.path], stdin: plain)
        #expect(enc.status == 0)
        let outcomes = try await withThrowingTaskGroup(of: (Int32, Bool, String).self) { group in
            var results: [(Int32, Bool, String)] = []
            for run in 0..<1000 {
                if run >= 4 { results.append(try await group.next()!) }
                group.addTask {
                    let wrong = "wrong-\(UInt64.random(in: 0...UInt64.max))"
                    let result = try CLI.run(["decrypt", "--key", wrong, "--key", "right", "--binary", "-i",
                                              sealed.path])
                    return (result.status, result.stdout == plain, result.stderr)
                }
            }
            for try await result in group { results.append(result) }
            return results
        }
        #expect(outcomes.count == 1000)
        let garbage = outcomes.filter { $0.0 == 0 && !$0.1 }
        #expect(garbage.isEmpty, "\(garbage.count) runs wrote the wrong plaintext")
        let ambiguous = outcomes.filter { $0.0 == 1 && $0.2.contains("ambiguous") }
        #expect(ambiguous.count + outcomes.filter { $0.0 == 0 && $0.1 }.count == 1000)
        #expect(ambiguous.count < 20, "\(ambiguous.count) of 1000 ambiguous")
    }

    @Test("bad padding and bad UTF-8 give the same report: code, message, status line and exit code")
    func oneFailure() throws {
        let module = try CryptoModule(cipherKey: "enigma")
        var badPadding = try module.encryptBinary(Array(#""some text of two blocks""#.utf8), scheme: .legacy)
        badPadding[badPadding.count - 17] ^= 0x55
        let badUTF8 = try module.encryptBinary([0x22, 0xFF, 0xFE, 0x22], scheme: .legacy)
        // The library, as messages and as text with a choice of keys.
        let crypto = try MessageCrypto(cipherKey: "enigma", reading: .only(.legacy))
        let statuses = [badPadding, badUTF8].map {
            crypto.decrypt(.string(Base64.encode($0)), policy: .marker).status
        }
        #expect(statuses[0]?.error == CryptoModule.decryptionFailed)
        #expect(statuses[1]?.error == CryptoModule.decryptionFailed)
        let ring = try KeyRing(["other", "enigma"])
        for data in [badPadding, badUTF8] {
            let error = expectPNError { () throws(PNCryptError) in try ring.decrypt(data, content: .text) }
            #expect(error == CryptoModule.decryptionFailed)
        }
        // The CLI: message decrypt under every policy, and text decrypt with two keys.
        for policy in ["marker", "passthrough", "fail"] {
            let runs = try [badPadding, badUTF8].map {
                try CLI.run(["message", "decrypt", "--key", "enigma", "--scheme", "legacy", "--on-error", policy,
                             "\"\(Base64.encode($0))\""])
            }
            #expect(runs[0].status == runs[1].status)
            let lines = runs.map { $0.stderr.replacingOccurrences(of: #","original":"[^"]*""#, with: "",
                                                                   options: .regularExpression) }
            #expect(lines[0] == lines[1], "\(lines)")
            #expect(lines[0].contains(#""reason":"wrongKeyOrCorrupt""#))
        }
        let texts = try [badPadding, badUTF8].map {
            try CLI.run(["decrypt", "--key", "other", "--key", "enigma", Base64.encode($0)])
        }
        #expect(texts[0].status == 1 && texts[1].status == 1)
        #expect(texts[0].stderr == texts[1].stderr)
    }

    @Test("the padding check accepts exactly the valid PKCS#7 endings")
    func constantTimeUnpad() {
        var block = [UInt8](repeating: 0xAB, count: 32)
        for pad in 0...255 {
            for corrupt in [false, true] {
                block[31] = UInt8(pad)
                if pad >= 1 && pad <= 16 { for i in 0..<pad { block[31 - i] = UInt8(pad) } }
                if corrupt && pad >= 2 && pad <= 16 { block[32 - pad] ^= 1 }
                let valid = (1...16).contains(pad) && !(corrupt && pad >= 2)
                let result = block.withUnsafeBytes { PKCS7.unpad($0) }
                #expect(result.valid == valid, "pad \(pad) corrupt \(corrupt)")
                #expect(result.count == (valid ? 32 - pad : 32))
                block = [UInt8](repeating: 0xAB, count: 32)
            }
        }
    }
}
