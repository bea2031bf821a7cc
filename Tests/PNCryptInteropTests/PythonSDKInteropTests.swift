import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport
import PNCryptFiles

/// Settings of the interop suite, from the environment.
enum Interop {
    /// The seed used when `PNCRYPT_INTEROP_SEED` is not set: every run checks the same cases.
    static let defaultSeed: UInt64 = 20_240_605

    /// `PNCRYPT_INTEROP_SEED` (decimal, or hex with `0x`), else `defaultSeed`; nil when the variable is malformed.
    static let seed: UInt64? = {
        guard let text = ProcessInfo.processInfo.environment["PNCRYPT_INTEROP_SEED"], !text.isEmpty else {
            return defaultSeed
        }
        if text.lowercased().hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }()

    /// Random messages per scheme and direction (`PNCRYPT_INTEROP_MESSAGES`, default 200).
    static let messagesPerScheme: Int = {
        Int(ProcessInfo.processInfo.environment["PNCRYPT_INTEROP_MESSAGES"] ?? "") ?? 200
    }()

    /// The peer and the seed, or an error that fails the test saying what to do.
    static func setup() throws -> (peer: PythonPeer, seed: UInt64) {
        guard let seed else {
            throw PythonPeer.SetupError(description: "PNCRYPT_INTEROP_SEED must be a decimal or 0x-hex UInt64, not "
                                        + "'\(ProcessInfo.processInfo.environment["PNCRYPT_INTEROP_SEED"] ?? "")'")
        }
        return (try PythonPeer.shared(), seed)
    }

    /// How to name one case in a failure message: enough to reproduce it.
    static func label(_ seed: UInt64, _ test: String, _ index: Int, _ scheme: Scheme, key: String,
                      message: JSONValue? = nil) -> String {
        var text = "[PNCRYPT_INTEROP_SEED=\(seed) \(test) case \(index) scheme \(scheme) key \(key.debugDescription)]"
        if let message {
            let json = message.serializedString()
            text += " message " + (json.count > 400 ? String(json.prefix(400)) + "…" : json)
        }
        return text
    }

    /// `peer.batch`, its errors naming the seed and the test (so a broken pipe mid-run can be replayed).
    static func batch(_ peer: PythonPeer, _ requests: [JSONValue], seed: UInt64, test: String) throws -> [JSONValue] {
        do {
            return try peer.batch(requests)
        } catch {
            throw PythonPeer.PeerError(description: "[PNCRYPT_INTEROP_SEED=\(seed) \(test)] \(error)")
        }
    }

    /// The SDK scheme names and `via` choices are the peer's (see `scripts/vectors/pubnub_peer.py`).
    static let messageSchemes: [Scheme] = [.legacy, .legacyRandomIV, .acrh]
    /// The three file formats: fixed-IV legacy (the SDK's module with a static-IV legacy cryptor), random-IV legacy
    /// and acrh.
    static let fileSchemes: [Scheme] = [.legacy, .legacyRandomIV, .acrh]

    /// What the SDK hands the application for `message` when it decrypts through `via`. The legacy cryptor decodes
    /// JSON twice (`PubNubLegacyCryptor.decrypt` runs `json.loads`, then `PubNubCryptoModule.decrypt` runs it
    /// again), so through the module a legacy message that is a string holding JSON text comes back as that
    /// JSON's value (`"42"` as the number 42). `PubNubCryptodome.decrypt` and the ACRH cryptor decode once.
    static func sdkView(of message: JSONValue, scheme: Scheme, via: String) -> JSONValue {
        guard scheme != .acrh, via == "module", case .string(let text) = message,
              let inner = try? JSONValue(parsing: text) else { return message }
        return inner
    }

    /// `size` deterministic pseudo-random bytes (AES of zeros under a key made from the seed: fast for 50 MB).
    static func content(size: Int, seed: UInt64, label: String) throws -> [UInt8] {
        guard size > 0 else { return [] }
        let module = try CryptoModule(cipherKey: "interop-content-\(seed)-\(label)")
        return Array(try module.encryptBinary([UInt8](repeating: 0, count: size), scheme: .legacy).prefix(size))
    }

    /// Encrypts or decrypts a file with the library's streaming API (constant memory).
    static func stream(_ stage: any ByteStreamStage, from input: URL, to output: URL) throws {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let inHandle = try FileHandle(forReadingFrom: input)
        let outHandle = try FileHandle(forWritingTo: output)
        defer {
            try? inHandle.close()
            try? outHandle.close()
        }
        try StreamPipeline.run(from: inHandle.descriptor, through: [stage], to: outHandle.descriptor)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The alphabet of `secrets.token_urlsafe`, which the SDK's legacy message path and `PubNubFileCrypto` make
    /// their "random" IVs from.
    static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}

/// Round-trips between pncrypt and the real PubNub Python SDK (`pubnub==10.8.0` from PyPI, in `.venv`), driven
/// through one `scripts/vectors/pubnub_peer.py` process. Seeded: set `PNCRYPT_INTEROP_SEED` to replay a failure (every
/// failure message names the seed and the case). Skipped only with `PNCRYPT_SKIP_INTEROP=1` outside CI.
@Suite("PythonSDK interop: pncrypt against the PubNub Python SDK 10.8.0", .serialized, .tags(.interop), .notInQuickRun,
       .enabled(if: InteropSwitch.enabled, "interop skipped because PNCRYPT_SKIP_INTEROP=1"))
struct PythonSDKInteropTests {
    // MARK: Messages

    /// pncrypt publishes (random JSON style, random IV where the scheme has one); the SDK decrypts it the way
    /// a subscriber does (`CryptoModule.decrypt(str)`, or `PubNubCryptodome.decrypt` for legacy schemes).
    @Test("messages: pncrypt encrypts, the Python SDK decrypts", arguments: Interop.messageSchemes)
    func messagesToSDK(scheme: Scheme) throws {
        let (peer, seed) = try Interop.setup()
        var generator = MessageGenerator(rng: SeededRandom(seed: seed, label: "to-sdk-\(scheme)"))
        var cases: [(label: String, expected: JSONValue)] = []
        var requests: [JSONValue] = []
        for index in 0..<Interop.messagesPerScheme {
            let message = generator.message()
            let key = generator.cipherKey()
            // The styles that keep every value (the SDK styles change some, as their SDKs do: SDKStyleTests).
            let style = generator.rng.pick(JSONStyle.exactStyles)
            let via = scheme == .acrh || generator.rng.chance(2, in: 3) ? "module" : "cryptodome"
            let label = Interop.label(seed, "to-sdk", index, scheme, key: key, message: message)
                + " style \(style) via \(via)"
            let sealed: JSONValue
            do {
                sealed = try MessageCrypto(cipherKey: key, scheme: scheme, style: style).encrypt(message)
            } catch {
                Issue.record("pncrypt could not encrypt: \(error) \(label)")
                continue
            }
            guard case .string(let base64) = sealed else {
                Issue.record("pncrypt did not produce a string: \(sealed) \(label)")
                continue
            }
            if scheme == .acrh {
                #expect(base64.hasPrefix("UE5FRAFBQ1JIE"), "\(label)")
            }
            requests.append(["op": "decrypt_message", "scheme": .string(scheme.rawValue), "key": .string(key),
                             "message": .string(base64), "via": .string(via)])
            cases.append((label, Interop.sdkView(of: message, scheme: scheme, via: via)))
        }
        let replies = try Interop.batch(peer, requests, seed: seed, test: "to-sdk \(scheme)")
        for (reply, item) in zip(replies, cases) {
            guard reply["ok"] == true, let value = reply["value"] else {
                Issue.record("the SDK could not decrypt pncrypt's message: \(reply) \(item.label)")
                continue
            }
            // Compared as compact JSON bytes: exact strings (not Swift's canonical equivalence) and number text.
            #expect(value.serializedString() == item.expected.serializedString(), "\(item.label)")
        }
        #expect(replies.count == Interop.messagesPerScheme)
        print("PythonSDK interop [PNCRYPT_INTEROP_SEED=\(seed)] messages \(scheme), "
              + "pncrypt -> SDK: \(cases.count) cases")
    }

    /// The SDK publishes (a real `Publish` endpoint's body: `json.dumps`, encrypt, Base64, quotes); pncrypt
    /// decrypts it as a subscriber. Checked on the same replies: pncrypt's `python` style is the SDK's JSON text
    /// byte for byte, and pncrypt reproduces the SDK's wire body exactly under `legacy`, and under the random-IV
    /// schemes when given the IV the SDK used (every other case stubs the SDK's IV).
    @Test("messages: the Python SDK encrypts, pncrypt decrypts; JSON text and ciphertext agree",
          arguments: Interop.messageSchemes)
    func messagesFromSDK(scheme: Scheme) throws {
        let (peer, seed) = try Interop.setup()
        var generator = MessageGenerator(rng: SeededRandom(seed: seed, label: "from-sdk-\(scheme)"))
        struct Case {
            var label: String
            var message: JSONValue
            var key: String
            var via: String
            var iv: [UInt8]?
        }
        var cases: [Case] = []
        var requests: [JSONValue] = []
        for index in 0..<Interop.messagesPerScheme {
            let message = generator.message()
            let key = generator.cipherKey()
            // Publish with only cipher_key set uses PubNubCryptodome; with a crypto_module, the module.
            let via = scheme == .acrh || generator.rng.chance(1, in: 3) ? "module" : "cryptodome"
            var iv: [UInt8]?
            if scheme != .legacy && index % 2 == 1 {
                // PubNubCryptodome makes its IVs from text: give it 16 URL-safe characters, as it would make.
                iv = via == "cryptodome" ? (0..<16).map { _ in generator.rng.pick(Interop.urlSafe) }
                    : generator.rng.bytes(16)
            }
            var request: JSONValue = ["op": "publish_payload", "scheme": .string(scheme.rawValue), "key": .string(key),
                                      "message": message, "via": .string(via)]
            if let iv, case .object(var object) = request {
                object.append(.string(Interop.hex(iv)), forKey: "iv_hex")
                request = .object(object)
            }
            requests.append(request)
            let label = Interop.label(seed, "from-sdk", index, scheme, key: key, message: message)
                + " via \(via)" + (iv.map { " iv \(Interop.hex($0))" } ?? "")
            cases.append(Case(label: label, message: message, key: key, via: via, iv: iv))
        }
        let replies = try Interop.batch(peer, requests, seed: seed, test: "from-sdk \(scheme)")
        #expect(replies.count == cases.count)
        var exactChecks = 0
        for (index, (reply, item)) in zip(replies, cases).enumerated() {
            guard reply["ok"] == true, let payload = reply["payload"]?.stringValue,
                  let base64 = reply["base64"]?.stringValue, let sdkJSON = reply["json"]?.stringValue else {
                Issue.record("the SDK could not publish: \(reply) \(item.label)")
                continue
            }
            let label = item.label + " wire \(payload)"
            do {
                try checkPublished(scheme: scheme, item.message, key: item.key, via: item.via, iv: item.iv,
                                   payload: payload, base64: base64, sdkJSON: sdkJSON, label: label,
                                   autoDetect: index.isMultiple(of: 2))
            } catch {
                Issue.record("\(error) \(label)")
            }
            if scheme == .legacy || item.iv != nil { exactChecks += 1 }
        }
        #expect(exactChecks >= (scheme == .legacy ? cases.count : cases.count / 2))
        print("PythonSDK interop [PNCRYPT_INTEROP_SEED=\(seed)] messages \(scheme), "
              + "SDK -> pncrypt: \(cases.count) cases"
              + " (JSON text compared in all, identical ciphertext in \(exactChecks))")
    }

    private func checkPublished(scheme: Scheme, _ message: JSONValue, key: String, via: String, iv: [UInt8]?,
                                payload: String, base64: String, sdkJSON: String, label: String,
                                autoDetect: Bool) throws {
        // 1. pncrypt decrypts the wire body as a subscriber would (acrh: half auto-detected, half explicit).
        let readScheme: Scheme? = scheme == .acrh && autoDetect ? nil : scheme
        let reader = try MessageCrypto(cipherKey: key, scheme: scheme, reading: ReadPolicy(scheme: readScheme,
                                                                                         legacyScheme: nil))
        let received = try reader.decrypt(jsonText: Array(payload.utf8), policy: .passThrough)
        #expect(received.status == nil, "\(label) status \(received.status.map { "\($0.json)" } ?? "")")
        #expect(received.message.serializedString() == message.serializedString(), "\(label)")
        #expect(received.scheme == scheme, "\(label)")

        // 2. The SDK's JSON text is pncrypt's `python` style, and it is exactly what the SDK encrypted.
        let pythonText = message.serialized(style: .python)
        #expect(Array(sdkJSON.utf8) == pythonText, "\(label)")
        let plaintext = try CryptoModule(cipherKey: key).decrypt(base64, reading: .only(scheme))
        #expect(Array(plaintext.utf8) == pythonText, "\(label)")

        // 3. Same bytes on the wire when the IV is the same.
        if scheme == .legacy || iv != nil {
            let writer = try MessageCrypto(cipherKey: key, scheme: scheme, style: .python)
            let body = try writer.publishBody(message, iv: iv)
            #expect(String(decoding: body, as: UTF8.self) == payload, "\(label)")
        } else if scheme == .legacyRandomIV && via == "cryptodome" {
            // The SDK quirk: its legacy message path makes IVs of 16 URL-safe characters.
            let iv = try Base64.decode(base64).prefix(16)
            #expect(iv.allSatisfy { Interop.urlSafe.contains($0) }, "\(label)")
        }
    }

    /// Fixed cases that pin the SDK's documented behaviours.
    @Test("messages: known values and the SDK's double JSON decoding")
    func knownMessages() throws {
        let (peer, _) = try Interop.setup()
        // docs/formats.md section 4: "hello" under legacy with enigma.
        let hello = try peer.request(["op": "publish_payload", "scheme": "legacy", "key": "enigma", "message": "hello"])
        #expect(hello["payload"] == "\"BQ2Ywm6XtvTCGCFPTY6FJw==\"")
        let mine = try MessageCrypto(cipherKey: "enigma", scheme: .legacy, style: .python).publishBody("hello")
        #expect(String(decoding: mine, as: UTF8.self) == "\"BQ2Ywm6XtvTCGCFPTY6FJw==\"")

        // The string message "42": pncrypt gives back the string in every scheme; the SDK's legacy module path
        // gives the number 42 (double decoding), its Cryptodome path and the ACRH cryptor the string.
        for scheme in Interop.messageSchemes {
            let crypto = try MessageCrypto(cipherKey: "enigma", scheme: scheme, reading: .only(scheme))
            guard case .string(let sealed) = try crypto.encrypt(.string("42")) else {
                Issue.record("not a string")
                continue
            }
            #expect(crypto.decrypt(.string(sealed), policy: .passThrough).message == "42")
            for via in scheme == .acrh ? ["module"] : ["module", "cryptodome"] {
                let reply = try peer.request(["op": "decrypt_message", "scheme": .string(scheme.rawValue),
                                              "key": "enigma", "message": .string(sealed), "via": .string(via)])
                let expected: JSONValue = scheme != .acrh && via == "module" ? 42 : "42"
                #expect(reply["value"] == expected, "\(scheme) via \(via): \(reply)")
            }
        }

        // Encrypting empty text: the SDK's modules refuse it in every scheme, and so does pncrypt (docs/formats.md
        // section 3).
        // A message is never empty text (its JSON is at least 2 bytes).
        for scheme in Interop.messageSchemes {
            let reply = try peer.request(["op": "encrypt", "scheme": .string(scheme.rawValue), "key": "enigma",
                                          "text": ""])
            #expect(reply["ok"] == false && reply["category"] == "encryption", "\(scheme): \(reply)")
            let ours = expectPNError { () throws(PNCryptError) in
                try CryptoModule(cipherKey: "enigma").encryptBinary([], scheme: scheme)
            }
            #expect(ours?.code == .emptyPlaintext && ours?.category == .encryption, "\(scheme)")
        }
    }

    // MARK: Files

    /// Files in the three formats (legacy fixed IV, legacy random IV, acrh), at sizes 0, 1, 16, 1 MiB, 50 MiB and
    /// random sizes, both ways, plus byte-for-byte equality with the SDK's output for the same IV.
    @Test("files: three formats, both directions, sizes 0, 1, 16, 1 MiB, 50 MiB and random",
          arguments: Interop.fileSchemes)
    func files(scheme: Scheme) throws {
        let (peer, seed) = try Interop.setup()
        var rng = SeededRandom(seed: seed, label: "files-\(scheme)")
        var sizes = [0, 1, 16, 1 << 20, 50 << 20, 15, 17, 31, 32, 33]
        for _ in 0..<40 { sizes.append(rng.int(2...70_000)) }
        try withTemporaryDirectory { dir in
            var tally = FileTally()
            defer {
                print("PythonSDK interop [PNCRYPT_INTEROP_SEED=\(seed)] files \(scheme), \(sizes.count) sizes: "
                      + "pncrypt -> SDK \(tally.toSDK), SDK -> pncrypt \(tally.fromSDK), identical bytes for the "
                      + "same IV \(tally.sameBytes), empty file refused as documented \(tally.refused)")
            }
            for (index, size) in sizes.enumerated() {
                var keys = MessageGenerator(rng: SeededRandom(seed: rng.next(), label: "key"))
                let key = keys.cipherKey()
                let label = Interop.label(seed, "files", index, scheme, key: key) + " size \(size)"
                do {
                    try fileCase(peer: peer, scheme: scheme, size: size, key: key, rng: &rng, dir: dir, label: label,
                                 tally: &tally)
                } catch {
                    throw PythonPeer.PeerError(description: "\(label): \(error)")
                }
            }
        }
    }

    /// Cases run by `files(scheme:)`, by direction.
    struct FileTally {
        var toSDK = 0, fromSDK = 0, sameBytes = 0, refused = 0
    }

    private func fileCase(peer: PythonPeer, scheme: Scheme, size: Int, key: String, rng: inout SeededRandom,
                          dir: URL, label: String, tally: inout FileTally) throws {
        let seedLabel = "\(label)"
        let plain = dir.appendingPathComponent("plain-\(size)")
        let ours = dir.appendingPathComponent("ours-\(size).enc")
        let theirs = dir.appendingPathComponent("theirs-\(size).enc")
        let back = dir.appendingPathComponent("back-\(size)")
        defer {
            for url in [plain, ours, theirs, back] { try? FileManager.default.removeItem(at: url) }
        }
        let data = Data(try Interop.content(size: size, seed: Interop.seed ?? 0, label: seedLabel))
        try data.write(to: plain)
        let cipherKey = try CipherKey(key)
        // `via` "filecrypto" is what send_file/download_file use with a per-call cipher_key: legacy format only.
        // The module refuses empty files (checked in `emptyFiles`); PubNubFileCrypto writes them.
        let via = scheme == .legacyRandomIV && (size == 0 || rng.chance(1, in: 2)) ? "filecrypto" : "module"
        let useCLI = size == 1 << 20 || rng.chance(1, in: 5)
        func peerFile(_ op: String, _ input: URL, _ output: URL, iv: [UInt8]? = nil) throws -> JSONValue {
            var request: JSONObject = ["op": .string(op), "scheme": .string(scheme.rawValue), "key": .string(key),
                                       "in": .string(input.path), "out": .string(output.path), "via": .string(via)]
            if let iv { request.append(.string(Interop.hex(iv)), forKey: "iv_hex") }
            return try peer.request(.object(request))
        }

        // 1. pncrypt encrypts (library stream, or the CLI's --binary) -> the SDK decrypts.
        var encrypted = true
        if useCLI {
            let result = try CLI.run(["encrypt", "--binary", "--scheme", scheme.rawValue, "-i", plain.path,
                                      "-o", ours.path], environment: ["PNCRYPT_KEY": key])
            if size == 0 {
                #expect(result.status == 1, "\(label) CLI: \(result.stderr)")
                #expect(result.stderr.hasPrefix("pncrypt: encryption error: "), "\(label) CLI: \(result.stderr)")
                encrypted = false
            } else {
                #expect(result.status == 0, "\(label) CLI: \(result.stderr)")
            }
        } else {
            do {
                try Interop.stream(try StreamEncryptor(key: cipherKey, scheme: scheme), from: plain, to: ours)
            } catch let error as PNCryptError {
                // docs/formats.md section 3: empty data is refused in every scheme, as the SDK's module does.
                #expect(size == 0 && error.code == .emptyPlaintext, "\(label): \(error)")
                encrypted = false
            }
        }
        if size == 0 {
            #expect(!encrypted, "\(label): pncrypt encrypted an empty file")
            tally.refused += 1
        } else if encrypted {
            let sealed = try Data(contentsOf: ours)
            let prefix = [Scheme.acrh: 26, .legacyRandomIV: 16, .legacy: 0][scheme]!
            #expect(sealed.count == prefix + (size / 16 + 1) * 16, "\(label)")
            let reply = try peerFile("decrypt_file", ours, back)
            #expect(reply["ok"] == true, "\(label) SDK decrypt_file: \(reply)")
            if reply["ok"] == true {
                #expect(try Data(contentsOf: back) == data, "\(label): the SDK decrypted other bytes")
            }
            tally.toSDK += 1
        }

        // 2. The SDK encrypts -> pncrypt decrypts (format auto-detected, or explicit).
        let reply = try peerFile("encrypt_file", plain, theirs)
        if size == 0 && via == "module" {
            // The SDK's CryptoModule refuses empty files in both formats ("encryption error").
            #expect(reply["ok"] == false && reply["category"] == "encryption", "\(label): \(reply)")
            tally.refused += 1
        } else {
            #expect(reply["ok"] == true, "\(label) SDK encrypt_file: \(reply)")
            guard reply["ok"] == true else { return }
            let sealed = try Data(contentsOf: theirs)
            if scheme == .acrh {
                #expect(sealed.starts(with: Array("PNED".utf8) + [1] + Array("ACRH".utf8) + [16]), "\(label)")
            } else if via == "filecrypto" {
                #expect(sealed.prefix(16).allSatisfy { Interop.urlSafe.contains($0) }, "\(label): IV not URL-safe")
            }
            try? FileManager.default.removeItem(at: back)
            if useCLI {
                // A headerless file says nothing of its IV: the fixed-IV format is named, as a client is set.
                let legacy = scheme == .legacy ? ["--legacy-scheme", "legacy"] : []
                let result = try CLI.run(["decrypt", "--binary", "-i", theirs.path, "-o", back.path] + legacy,
                                         environment: ["PNCRYPT_KEY": key])
                #expect(result.status == 0, "\(label) CLI: \(result.stderr)")
            } else {
                let explicit: Scheme? = rng.chance(1, in: 2) ? scheme : nil
                let legacy: Scheme = scheme == .legacy ? .legacy : .legacyRandomIV
                let policy = ReadPolicy(scheme: explicit, legacyScheme: legacy)
                try Interop.stream(try StreamDecryptor(key: cipherKey, reading: policy), from: theirs, to: back)
            }
            #expect(try Data(contentsOf: back) == data, "\(label): pncrypt decrypted other bytes")
            tally.fromSDK += 1
        }

        // 3. Same IV, same bytes (not for 50 MiB: the two directions above cover it).
        if size <= 1 << 20 && size > 0 {
            // The fixed-IV format has no IV to choose: its bytes are the same every time.
            let iv: [UInt8]? = scheme == .legacy ? nil
                : via == "filecrypto" ? (0..<16).map { _ in rng.pick(Interop.urlSafe) } : rng.bytes(16)
            let fixed = try peerFile("encrypt_file", plain, theirs, iv: iv)
            #expect(fixed["ok"] == true, "\(label) iv \(Interop.hex(iv ?? [])): \(fixed)")
            if fixed["ok"] == true {
                let mine = try StreamPipeline.run(Array(data), through: [StreamEncryptor(key: cipherKey, scheme: scheme,
                                                                                          iv: iv)])
                #expect(try Data(contentsOf: theirs) == Data(mine), "\(label) iv \(Interop.hex(iv ?? []))")
                tally.sameBytes += 1
            }
        }
    }

    /// Empty plaintext: both refuse to write it with a module (docs/formats.md section 3, the contract scenarios).
    /// Read back
    /// from a hand-made file (header or IV, then one block holding only padding), both return 0 bytes, as the
    /// contract's empty files expect.
    @Test("files: empty plaintext in both formats")
    func emptyFiles() throws {
        let (peer, _) = try Interop.setup()
        let key = try CipherKey("ключ🔑")
        try withTemporaryDirectory { dir in
            // header + first block of the encryption of 16 bytes of 0x10 = the encryption of nothing
            let sixteen = try CryptoModule(key: key).encryptBinary([UInt8](repeating: 16, count: 16), scheme: .acrh)
            let emptyACRH = Array(sixteen.prefix(26 + 16))
            let file = dir.appendingPathComponent("empty.acrh")
            let out = dir.appendingPathComponent("out")
            try Data(emptyACRH).write(to: file)
            let reply = try peer.request(["op": "decrypt_file", "scheme": "acrh", "key": "ключ🔑",
                                          "in": .string(file.path), "out": .string(out.path)])
            #expect(reply["ok"] == true && reply["bytes"] == 0, "SDK: \(reply)")
            #expect(try StreamPipeline.run(emptyACRH, through: [StreamDecryptor(key: key)]) == [])
            #expect(try CryptoModule(key: key).decryptBinary(emptyACRH) == [])

            // The legacy format: pncrypt refuses to write an empty file; IV + one padding block reads as 0 bytes
            // in the SDK, both code paths.
            #expect(expectPNError { () throws(PNCryptError) in
                try StreamPipeline.run([UInt8](), through: [StreamEncryptor(key: key, scheme: .legacyRandomIV)])
            }?.code == .emptyPlaintext)
            let legacy = try CryptoModule(key: key)
                .encryptBinary([UInt8](repeating: 16, count: 16), scheme: .legacyRandomIV)
                .prefix(32)
            try Data(legacy).write(to: file)
            for via in ["module", "filecrypto"] {
                let r = try peer.request(["op": "decrypt_file", "scheme": "legacy-random-iv", "key": "ключ🔑",
                                          "in": .string(file.path), "out": .string(out.path), "via": .string(via)])
                #expect(r["ok"] == true && r["bytes"] == 0, "SDK via \(via): \(r)")
            }

            // The SDK writing empty files: its CryptoModule refuses in both formats, as pncrypt does;
            // PubNubFileCrypto writes the legacy format (IV + one padding block), which pncrypt reads as 0 bytes.
            let empty = dir.appendingPathComponent("empty")
            try Data().write(to: empty)
            for scheme in ["legacy-random-iv", "acrh"] {
                let r = try peer.request(["op": "encrypt_file", "scheme": .string(scheme), "key": "ключ🔑",
                                          "in": .string(empty.path), "out": .string(file.path)])
                #expect(r["ok"] == false && r["category"] == "encryption", "SDK module \(scheme): \(r)")
            }
            let r = try peer.request(["op": "encrypt_file", "scheme": "legacy-random-iv", "key": "ключ🔑",
                                      "in": .string(empty.path), "out": .string(file.path), "via": "filecrypto"])
            #expect(r["ok"] == true && r["bytes"] == 32, "SDK filecrypto: \(r)")
            let theirs = Array(try Data(contentsOf: file))
            #expect(try StreamPipeline.run(theirs, through: [StreamDecryptor(key: key)]) == [])
            #expect(try CryptoModule(key: key).decryptBinary(theirs, reading: .only(.legacyRandomIV)) == [])
        }
    }
}
