import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// "Certain or nothing" proven per shell (Swift API, CLI text mode, `--binary`, `message decrypt`,
/// `--lines`, `rekey`), all deciding through the one procedure (`Decision`). Every case is deterministic: fixed
/// keys, fixed IVs, so a wrong key that passes a check does so on every run (never flaky), and the cases that
/// matter (wrong keys whose padding passes) are picked on purpose.
@Suite struct PromiseMatrixTests {
    /// A message the real Python SDK publishes with a random IV (given here, so the case is the same every run).
    static let sdkMessage: JSONValue = ["text": "hello from the Python SDK", "n": 1]
    static let sdkIV = "SbJwkZ1ZnS87Lk1e"

    /// The SDK's ciphertext (Base64) and the JSON text it encrypted.
    static func pythonRandomIVMessage() throws -> (base64: String, json: String) {
        let (peer, seed) = try Interop.setup()
        let request: JSONValue = ["op": "publish_payload", "scheme": "legacy-random-iv", "key": "enigma",
                                  "message": sdkMessage, "via": "cryptodome",
                                  "iv_hex": .string(Interop.hex(Array(sdkIV.utf8)))]
        let reply = try #require(try Interop.batch(peer, [request], seed: seed, test: "promise matrix").first)
        let base64 = try #require(reply["base64"]?.stringValue, "\(reply)")
        let json = try #require(reply["json"]?.stringValue, "\(reply)")
        return (base64, json)
    }

    @Test("a random-IV message made by the Python SDK, read with auto: the Swift API", .tags(.interop), .notInQuickRun)
    func pythonMessageSwift() throws {
        let (base64, json) = try Self.pythonRandomIVMessage()
        let bytes = try Base64.decode(base64)
        let text = try KeyRing(["enigma"]).decrypt(bytes, content: .text)
        #expect(text.plaintext == Array(json.utf8))
        #expect(text.scheme == .legacyRandomIV)
        let received = try MessageCrypto(cipherKey: "enigma").decrypt(.string(base64), policy: .marker)
        #expect(received.status == nil)
        #expect(received.message == Self.sdkMessage)
        // A module told nothing tries both legacy readings: as text (the default) the headerless rule takes the
        // random-IV reading; as bytes both have valid padding and the fixed-IV reading's first block is a decrypted
        // IV (noise), so the files' rule takes the random-IV reading too: the message, whole (never 16 bytes of
        // garbage before the plaintext, as it once did; never ambiguous).
        let module = try CryptoModule(cipherKey: "enigma")
        #expect(try module.decrypt(base64) == json)
        #expect(try module.decryptBytes(base64) == Array(json.utf8))
        var told = module
        told.reading = .headerlessAs(.legacyRandomIV)
        #expect(try told.decrypt(base64) == json)
        // A module set to write legacy-random-iv reads its own scheme.
        let own = try CryptoModule(cipherKey: "enigma", scheme: .legacyRandomIV)
        #expect(try own.decrypt(base64) == json)
    }

    @Test("a random-IV message made by the Python SDK, read with auto: CLI text, --binary, message, --lines, rekey",
          .tags(.interop, .cli), .notInQuickRun)
    func pythonMessageCLI() throws {
        let (base64, json) = try Self.pythonRandomIVMessage()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try CLI.run(["decrypt", "--key", "enigma", base64])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.text == json)
        let file = dir.appendingPathComponent("sealed")
        try Data(try Base64.decode(base64)).write(to: file)
        let binary = try CLI.run(["decrypt", "--key", "enigma", "--binary", "-i", file.path])
        #expect(binary.status == 0, "\(binary.stderr)")
        #expect(binary.text == json)
        let message = try CLI.run(["message", "decrypt", "--key", "enigma", "\"\(base64)\""])
        #expect(message.status == 0, "\(message.stderr)")
        #expect(try JSONValue(parsing: message.stdout) == Self.sdkMessage)
        let lines = try CLI.run(["message", "decrypt", "--lines", "--key", "enigma"],
                                stdin: Array("\"\(base64)\"\n".utf8))
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(try JSONValue(parsing: lines.stdout) == Self.sdkMessage)
        let rekeyed = try CLI.run(["message", "rekey", "--key", "enigma", "--to-key", "new key"],
                                  stdin: Array("\"\(base64)\"\n".utf8))
        #expect(rekeyed.status == 0, "\(rekeyed.stderr)")
        let moved = try MessageCrypto(cipherKey: "new key").decrypt(jsonText: rekeyed.stdout, policy: .marker)
        #expect(moved.status == nil)
        #expect(moved.message == Self.sdkMessage)
    }

    /// 10,000 wrong keys, derived once.
    static let wrongKeys: [CipherKey] = (0..<10_000).map { try! CipherKey("wrong key \($0)") }

    @Test("10,000 wrong keys never give garbage with success: text, messages, legacy33 leaves (Swift API)",
          .tags(.slow), .notInQuickRun)
    func tenThousandWrongKeys() throws {
        let right = try CryptoModule(cipherKey: "right key")
        let text = Array("a short text".utf8)  // one block: the only reading of fixed-IV data
        let message = Array(#"{"a":1}"#.utf8)
        let fixed = try right.encryptBinary(text, scheme: .legacy)
        let random = try right.encryptBinary(text, scheme: .legacyRandomIV, iv: [UInt8](repeating: 7, count: 16))
        let sealedMessage = try right.encryptBinary(message, scheme: .legacy)
        let leaf = try right.encrypt(text, scheme: .legacy33)
        var paddingPasses = 0
        var garbage = 0
        for key in Self.wrongKeys {
            let ring = try KeyRing(keys: [key])
            if (try? CryptoModule(key: key).decryptBinary(fixed, reading: .only(.legacy))) != nil { paddingPasses += 1 }
            // Text, one reading (explicit) and auto (both legacy readings of two blocks).
            for (data, scheme) in [(fixed, Scheme.legacy), (random, nil)] {
                let policy = ReadPolicy(scheme: scheme, legacyScheme: nil)
                if let match = try? ring.decrypt(data, reading: policy, content: .text), match.plaintext != text {
                    garbage += 1
                }
            }
            if let match = try? ring.decrypt(sealedMessage, reading: .only(.legacy), content: .message),
               match.plaintext != message {
                garbage += 1
            }
            let crypto = MessageCrypto(keys: ring, scheme: .legacy33)
            if crypto.decrypt(.string(leaf), policy: .marker).status == nil { garbage += 1 }
        }
        // The residual risk of bytes with one key and one reading (no integrity in CBC): about 1 in 256.
        #expect(paddingPasses > 0 && paddingPasses < 100, "\(paddingPasses) of 10,000 pass the padding alone")
        #expect(garbage == 0)
    }

    @Test("a legacy33 module reads its own output with scheme nil")
    func legacy33RoundTrip() throws {
        let module = try CryptoModule(cipherKey: "enigma", scheme: .legacy33)
        for n in 0..<20 {
            let plaintext = Array("legacy33 plaintext \(n)".utf8)
            let sealed = try module.encrypt(plaintext)
            #expect(try module.decrypt(sealed) == String(decoding: plaintext, as: UTF8.self), "\(n)")
            #expect(try module.decryptBinary(try Base64.decode(sealed)) == plaintext, "\(n)")
        }
        // Messages in legacy33: every leaf round-trips through the module's scheme.
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy33)
        let value: JSONValue = ["a": "b", "list": ["c", ""]]
        #expect(crypto.decrypt(try crypto.encrypt(value), policy: .marker).message == value)
    }

    /// One-block fixed-IV ciphertexts made with 3,000 other keys; with `enigma` some pass the padding check.
    static let foreign: (passing: [[UInt8]], failing: [[UInt8]]) = {
        let enigma = try! CryptoModule(cipherKey: "enigma")
        var passing: [[UInt8]] = []
        var failing: [[UInt8]] = []
        for i in 0..<3000 {
            let sealed = try! CryptoModule(cipherKey: "foreign \(i)").encryptBinary(Array("hello".utf8),
                                                                                   scheme: .legacy)
            if (try? enigma.decryptBinary(sealed, reading: .only(.legacy))) != nil {
                passing.append(sealed)
            } else {
                failing.append(sealed)
            }
        }
        return (passing, failing)
    }()

    @Test("a one-block foreign ciphertext through auto text decryption never succeeds with non-UTF-8 (Swift)")
    func foreignOneBlockSwift() throws {
        let ring = try KeyRing(["enigma"])
        #expect(!Self.foreign.passing.isEmpty)
        for sealed in Self.foreign.passing + Self.foreign.failing {
            if let match = try? ring.decrypt(sealed, content: .text) {
                #expect(String(validating: match.plaintext, as: UTF8.self) != nil)
            }
        }
    }

    @Test("a one-block foreign ciphertext: CLI text never exits 0 with non-UTF-8; message, --lines, rekey refuse",
          .tags(.slow, .cli), .notInQuickRun)
    func foreignOneBlockCLI() throws {
        let cases = Self.foreign.passing + Self.foreign.failing.prefix(40)
        for sealed in cases {
            let result = try CLI.run(["decrypt", "--key", "enigma", Base64.encode(sealed)])
            if result.status == 0 {
                #expect(String(validating: result.stdout, as: UTF8.self) != nil)
            } else {
                #expect(result.stdout.isEmpty)
            }
        }
        // 300 foreign messages in one run each: none is delivered, none rekeyed.
        let many = Self.foreign.passing + Self.foreign.failing.prefix(300 - Self.foreign.passing.count)
        let input = Array(many.map { "\"\(Base64.encode($0))\"\n" }.joined().utf8)
        let lines = try CLI.run(["message", "decrypt", "--lines", "--key", "enigma"], stdin: input)
        let delivered = lines.text.split(separator: "\n").filter { $0 != "\"\(DecryptionPolicy.markerText)\"" }
        #expect(delivered.isEmpty, "\(delivered.prefix(3))")
        let rekey = try CLI.run(["message", "rekey", "--key", "enigma", "--to-key", "new key"], stdin: input)
        #expect(rekey.text == String(decoding: input, as: UTF8.self))
        #expect(rekey.stderr.contains("rekeyed 0"), "\(rekey.stderr)")
        for sealed in Self.foreign.passing {
            let message = try CLI.run(["message", "decrypt", "--key", "enigma", "\"\(Base64.encode(sealed))\""])
            #expect(message.text.hasPrefix("\"\(DecryptionPolicy.markerText)\""), "\(message.text)")
        }
    }
}
