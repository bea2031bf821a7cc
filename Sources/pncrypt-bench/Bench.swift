import ArgumentParser
import Foundation
import PNCrypt
import PNCryptFiles
import CPNCryptHeader

/// A scheme name on the command line (`--scheme`, with `--messages`).
extension Scheme: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// The rows of the scheme table the bench measures (the rest reads the table: the default scheme, names).
enum Measured {
    /// The message path: the fixed-IV legacy scheme and the default one.
    static let messageSchemes: [Scheme] = [.legacy, .acrh]
    /// The C batch calls: one reading (a header) and two readings (headerless random-IV data), by figure name.
    static let batchSchemes: [(name: String, scheme: Scheme)] = [("acrh", .acrh), ("random-iv", .legacyRandomIV)]
    /// Headerless data that every reading of a key ring checks (the trust figures).
    static let fixedIV: Scheme = .legacy
}

@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pncrypt-bench",
        abstract: "Measure pncrypt against its baselines, in this process.",
        discussion: """
        Each figure is printed beside a baseline measured in the same run, and the ratio ours / baseline (higher \
        is better): the message path and bulk AES against a bare OpenSSL EVP loop with a reused keyed context \
        (built with the SwiftCrypto trait: a bare loop of swift-crypto's AES._CBC), JSON against Foundation's \
        JSONSerialization, gzip against zlib's own loop at the same level. \
        Measure release builds: swift run -c release pncrypt-bench. --quick finishes in a few seconds.
        """)

    @Flag(help: "Short runs (a smoke check; the figures are noisier).")
    var quick = false

    @Flag(help: "Print {\"results\": [{name, unit, value, baseline, baseline_value, ratio}]}.")
    var json = false

    @Option(help: ArgumentHelp("Only the message path: time exactly N encryptions and N decryptions per scheme "
                               + "(for scripts/compare.sh and profilers).", valueName: "N"))
    var messages: Int?

    @Option(help: ArgumentHelp("With --messages: only this scheme (legacy, legacy-random-iv or acrh).",
                               visibility: .hidden))
    var scheme: Scheme?

    @Option(help: ArgumentHelp("Only the figures whose name starts with this "
                               + "(message, envelope, c.message, c.batch, bulk, text, json, gzip, lines, trust, auto, "
                               + "headerless).",
                               valueName: "prefix"))
    var only: String?

    @Flag(help: ArgumentHelp("With --messages: skip the baselines "
                             + "(profile pncrypt's code alone, e.g. under callgrind).",
                             visibility: .hidden))
    var noBaseline = false

    func validate() throws {
        if let messages, messages <= 0 { throw ValidationError("--messages must be positive") }
        if let scheme, scheme.row.message != .whole {
            throw ValidationError("\(scheme) messages are not measured")
        }
        if (scheme != nil || noBaseline) && messages == nil {
            throw ValidationError("--scheme and --no-baseline go with --messages")
        }
    }

    struct Result {
        var name: String
        var unit: String
        var value: Double
        var baseline: String
        var baselineValue: Double
        var ratio: Double { value / baselineValue }
    }

    func run() throws {
        let suite = Suite(seconds: quick ? 0.1 : 1.0, rounds: quick ? 2 : 3, bulkBytes: quick ? 8 << 20 : 64 << 20,
                          gzipBytes: quick ? 4 << 20 : 32 << 20)
        let results = if let messages {
            try suite.messageCounts(messages, schemes: scheme.map { [$0] } ?? Measured.messageSchemes,
                                    baseline: !noBaseline)
        } else {
            try suite.all(only: only)
        }
        if json {
            func number(_ value: Double) -> JSONValue {
                value.isFinite ? .number(JSONNumber(value.rounded(to: 4))!) : .null
            }
            let array = results.map { r -> JSONValue in
                .object(["name": .string(r.name), "unit": .string(r.unit), "value": number(r.value),
                         "baseline": .string(r.baseline), "baseline_value": number(r.baselineValue),
                         "ratio": number(r.ratio)])
            }
            print(JSONValue.object(["results": .array(array)]).serializedString())
        } else {
            print(Self.table(results))
        }
    }

    static func table(_ results: [Result]) -> String {
        func format(_ value: Double) -> String {
            value >= 100 ? String(Int(value.rounded())) : String(format: "%.2f", value)
        }
        func pad(_ text: String, _ width: Int, left: Bool = true) -> String {
            let fill = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + fill : fill + text
        }
        var lines = [pad("figure", 34) + pad("value", 12, left: false) + "  " + pad("unit", 6)
                     + pad("baseline", 31) + pad("value", 12, left: false) + pad("ratio", 8, left: false)]
        for r in results {
            lines.append(pad(r.name, 34) + pad(format(r.value), 12, left: false) + "  " + pad(r.unit, 6)
                         + pad(r.baseline, 31) + pad(format(r.baselineValue), 12, left: false)
                         + pad(String(format: "%.3f", r.ratio), 8, left: false))
        }
        return lines.joined(separator: "\n")
    }
}

extension Double {
    fileprivate func rounded(to digits: Int) -> Double {
        let scale = pow(10, Double(digits))
        return (self * scale).rounded() / scale
    }
}

/// The measurements. Every figure alternates ours and the baseline for `rounds` rounds and keeps the best of each.
struct Suite {
    var seconds: Double
    var rounds: Int
    var bulkBytes: Int
    var gzipBytes: Int

    /// A message of about 100 bytes of JSON text.
    static let message: JSONValue = [
        "text": "Hello from pncrypt, message 42", "user": "alice", "timetoken": .number(JSONNumber(13406746729185766)),
        "tags": ["news", "sport"], "ok": true,
    ]

    func all(only prefix: String? = nil) throws -> [Bench.Result] {
        func wanted(_ group: String) -> Bool {
            guard let prefix else { return true }
            return group.hasPrefix(prefix) || prefix.hasPrefix(group)
        }
        var results: [Bench.Result] = []
        for scheme in Measured.messageSchemes where wanted("message") {
            results += try messages(scheme)
        }
        if wanted("envelope") { results += try envelopeFigures() }
        if wanted("c.message") { results += try cMessages() }
        if wanted("c.batch") { results += try cBatches() }
        if wanted("bulk") { results += try bulk() }
        if wanted("text") { results += try textFigures() }
        if wanted("json") { results += try jsonFigures() }
        if wanted("gzip") { results += try gzipFigures() }
        if wanted("lines") { results += try lineFigures() }
        if wanted("trust") { results += try trustFigures() }
        if wanted("auto") { results += try autoFigures() }
        if wanted("headerless") { results += try headerlessFigures(count: bulkBytes >= 64 << 20 ? 1_000_000 : 20_000) }
        if let prefix { results = results.filter { $0.name.hasPrefix(prefix) } }
        return results
    }

    /// Runs `body` (which does `batch` units of work) until `seconds` pass; returns units per second.
    func rate(_ batch: Int, _ body: () throws -> Int) rethrows -> Double {
        var sink = 0
        var units = 0
        let clock = ContinuousClock()
        let start = clock.now
        var elapsed = Duration.zero
        repeat {
            sink &+= try body()
            units += batch
            elapsed = clock.now - start
        } while elapsed < .milliseconds(Int(seconds * 1000))
        blackHole(sink)
        let s = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(units) / s
    }

    /// Best of `rounds` for ours and the baseline, alternating.
    func compare(_ ours: () throws -> Double, _ baseline: () throws -> Double) rethrows -> (Double, Double) {
        var best = (0.0, 0.0)
        for _ in 0..<rounds {
            best.0 = max(best.0, try ours())
            best.1 = max(best.1, try baseline())
        }
        return best
    }

    /// What the message figures run: the publish path (JSON write, encrypt, Base64, JSON string literal) and the
    /// receive path (JSON string, Base64, decrypt, UTF-8 check, JSON parse), plus the bare loops' inputs.
    struct MessageWork {
        let crypto: MessageCrypto
        let text: [UInt8]
        let wire: [UInt8]
        let wireBase64: [UInt8]
        let body: [UInt8]
        let key = [UInt8](repeating: 7, count: 32)
        let iv = [UInt8](repeating: 1, count: 16)

        init(_ scheme: Scheme) throws {
            crypto = try MessageCrypto(cipherKey: "bench-key", scheme: scheme, reading: .only(scheme))
            text = Suite.message.serialized()
            wire = try crypto.publishBody(Suite.message)
            // The bare loops decrypt the same plaintext sealed under their own key, so the padding check passes.
            body = Baselines.evpSeal(text, key: key, iv: iv)
            wireBase64 = Base64.encodeBytes(body)
        }

        func encrypt(_ count: Int) throws -> Int {
            var n = 0
            for _ in 0..<count { n &+= try crypto.publishBody(Suite.message).count }
            return n
        }

        func decrypt(_ count: Int) throws -> Int {
            var n = 0
            for _ in 0..<count { if try crypto.decrypt(jsonText: wire, policy: .marker).status == nil { n &+= 1 } }
            return n
        }

        @inline(never)
        func evp(_ count: Int, encrypt: Bool, base64: Bool) -> Int {
            encrypt ? evpEncrypt(count, base64: base64) : evpDecrypt(count, base64: base64)
        }

        @inline(never)
        func evpEncrypt(_ count: Int, base64: Bool) -> Int { evpLoop(count, encrypt: true, base64: base64) }

        @inline(never)
        func evpDecrypt(_ count: Int, base64: Bool) -> Int { evpLoop(count, encrypt: false, base64: base64) }

        func evpLoop(_ count: Int, encrypt: Bool, base64: Bool) -> Int {
            if base64 && !encrypt {
                return Baselines.evpMessagesFromBase64(wireBase64, key: key, iv: iv, count: count)
            }
            return Baselines.evpMessages(encrypt ? text : body, key: key, iv: iv, encrypt: encrypt, count: count,
                                         base64: base64)
        }
    }

    /// Best of `rounds` for ours and two baselines, in rotation.
    func compare3(_ ours: () throws -> Double, _ first: () throws -> Double, _ second: () throws -> Double) rethrows
        -> (Double, Double, Double) {
        var best = (0.0, 0.0, 0.0)
        for _ in 0..<rounds {
            best.0 = max(best.0, try ours())
            best.1 = max(best.1, try first())
            best.2 = max(best.2, try second())
        }
        return best
    }

    func messages(_ scheme: Scheme) throws -> [Bench.Result] {
        let work = try MessageWork(scheme)
        let batch = 1000
        let enc = try compare3({ try rate(batch) { try work.encrypt(batch) } },
                               { rate(batch) { work.evp(batch, encrypt: true, base64: false) } },
                               { rate(batch) { work.evp(batch, encrypt: true, base64: true) } })
        let dec = try compare3({ try rate(batch) { try work.decrypt(batch) } },
                               { rate(batch) { work.evp(batch, encrypt: false, base64: false) } },
                               { rate(batch) { work.evp(batch, encrypt: false, base64: true) } })
        let enc64 = (enc.0, enc.2)
        let dec64 = (dec.0, dec.2)
        let evp = Baselines.messageLabel
        let evp64 = Baselines.base64Label
        return [
            Bench.Result(name: "message.encrypt.\(scheme)", unit: "msg/s", value: enc.0, baseline: evp,
                baselineValue: enc.1),
            Bench.Result(name: "message.decrypt.\(scheme)", unit: "msg/s", value: dec.0, baseline: evp,
                baselineValue: dec.1),
            Bench.Result(name: "message.encrypt.\(scheme).vs_base64", unit: "msg/s", value: enc64.0, baseline: evp64,
                         baselineValue: enc64.1),
            Bench.Result(name: "message.decrypt.\(scheme).vs_base64", unit: "msg/s", value: dec64.0, baseline: evp64,
                         baselineValue: dec64.1),
        ]
    }

    /// `pncrypt bench --messages N`: exactly `count` messages each way per scheme, timed once (best for scripts
    /// and profilers; the figures are as noisy as the machine).
    func messageCounts(_ count: Int, schemes: [Scheme], baseline: Bool) throws -> [Bench.Result] {
        func seconds(_ body: () throws -> Int) rethrows -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            blackHole(try body())
            let elapsed = clock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        var results: [Bench.Result] = []
        for scheme in schemes {
            let work = try MessageWork(scheme)
            let enc = Double(count) / (try seconds { try work.encrypt(count) })
            let dec = Double(count) / (try seconds { try work.decrypt(count) })
            let encBase = baseline ? Double(count) / seconds { work.evp(count, encrypt: true, base64: true) } : .nan
            let decBase = baseline ? Double(count) / seconds { work.evp(count, encrypt: false, base64: true) } : .nan
            results.append(Bench.Result(name: "message.encrypt.\(scheme)", unit: "msg/s", value: enc,
                                        baseline: Baselines.base64Label, baselineValue: encBase))
            results.append(Bench.Result(name: "message.decrypt.\(scheme)", unit: "msg/s", value: dec,
                                        baseline: Baselines.base64Label, baselineValue: decBase))
        }
        return results
    }

    /// What a failed item of a C batch costs against a good one (no more than about 1.5x, so the ratio
    /// failed / ok should stay above 0.67): `pncrypt_decrypt_many_text` over 1,000 messages, all under the module's
    /// key, or all under another key (each fails after every reading is checked; only the first failure's message
    /// is made). acrh (one reading) and headerless random-IV legacy data (two readings).
    func cBatches() throws -> [Bench.Result] {
        var module: OpaquePointer?
        guard pncrypt_module_new("bench-key", Scheme.defaultForWriting.rawValue, &module, nil) == 0, let module else {
            throw PNCryptError(.invalidValue, "pncrypt_module_new failed")
        }
        defer { pncrypt_module_free(module) }
        let text = Suite.message.serialized()
        let count = 1000
        func batch(key: String, scheme: Scheme) throws -> (data: [CChar], lengths: [Int]) {
            let sealer = CryptoModule(key: try CipherKey(key), scheme: scheme)
            var data: [CChar] = []
            var lengths: [Int] = []
            for _ in 0..<count {
                let item = try sealer.encrypt(text)
                data += item.utf8.map { CChar(bitPattern: $0) }
                lengths.append(item.utf8.count)
            }
            return (data, lengths)
        }
        func decrypt(_ items: (data: [CChar], lengths: [Int])) -> Int {
            var out: UnsafeMutablePointer<UInt8>?
            var offsets = [Int](repeating: 0, count: count + 1)
            var codes = [Int32](repeating: 0, count: count)
            var status = pncrypt_error()
            let rc = pncrypt_decrypt_many_text(module, nil, items.data, items.data.count, items.lengths, count, &out,
                                               &offsets, &codes, &status)
            pncrypt_free(out)
            return rc == 0 ? count : 0
        }
        var results: [Bench.Result] = []
        for (name, scheme) in Measured.batchSchemes {
            let good = try batch(key: "bench-key", scheme: scheme)
            let bad = try batch(key: "another-key", scheme: scheme)
            let (failed, ok) = compare({ rate(count) { decrypt(bad) } }, { rate(count) { decrypt(good) } })
            results.append(Bench.Result(name: "c.batch.failed_vs_ok.\(name)", unit: "msg/s", value: failed,
                                        baseline: "the same batch, every item good", baselineValue: ok))
        }
        return results
    }

    /// The C interface (include/pncrypt.h) against the Swift API doing the same work in this process: JSON text
    /// in, JSON text out (`MessageCrypto.encrypt(jsonText:)` / `decrypt(jsonText:policy:)`, then `serialized()`),
    /// acrh. The C calls go through the exported `pncrypt_` entry points, output buffers included
    /// (`pncrypt_free` wipes and frees each one). Ratio C / Swift: 1 is free, 0.91 is 10% more time per message.
    func cMessages() throws -> [Bench.Result] {
        let crypto = try MessageCrypto(cipherKey: "bench-key", scheme: .defaultForWriting)
        let text = Suite.message.serialized()
        let wire = try crypto.publishBody(Suite.message)
        var module: OpaquePointer?
        guard pncrypt_module_new("bench-key", Scheme.defaultForWriting.rawValue, &module, nil) == 0, let module else {
            throw PNCryptError(.invalidValue, "pncrypt_module_new failed")
        }
        defer { pncrypt_module_free(module) }
        func swiftEncrypt(_ count: Int) throws -> Int {
            var n = 0
            for _ in 0..<count { n &+= try crypto.encrypt(jsonText: text).serialized().count }
            return n
        }
        func swiftDecrypt(_ count: Int) throws -> Int {
            var n = 0
            for _ in 0..<count { n &+= try crypto.decrypt(jsonText: wire, policy: .marker).message.serialized().count }
            return n
        }
        func cEncrypt(_ count: Int) -> Int {
            text.withUnsafeBufferPointer { input in
                var n = 0
                var out: UnsafeMutablePointer<CChar>?
                for _ in 0..<count {
                    guard pncrypt_message_encrypt(module, input.baseAddress, input.count, &out,
                        nil) == 0 else { continue }
                    n &+= strlen(out!)
                    pncrypt_free(out)
                }
                return n
            }
        }
        func cDecrypt(_ count: Int) -> Int {
            wire.withUnsafeBufferPointer { input in
                var n = 0
                var out: UnsafeMutablePointer<CChar>?
                var status = pncrypt_error()
                for _ in 0..<count {
                    let code = pncrypt_message_decrypt(module, input.baseAddress, input.count,
                                                       PNCRYPT_ON_ERROR_MARKER, &out, &status)
                    guard code == 0 else { continue }
                    if status.code == 0 { n &+= strlen(out!) }
                    pncrypt_free(out)
                }
                return n
            }
        }
        let batch = 1000
        let enc = try compare({ rate(batch) { cEncrypt(batch) } }, { try rate(batch) { try swiftEncrypt(batch) } })
        let dec = try compare({ rate(batch) { cDecrypt(batch) } }, { try rate(batch) { try swiftDecrypt(batch) } })
        let swift = "Swift API, same text in and out"
        return [
            Bench.Result(name: "c.message.encrypt", unit: "msg/s", value: enc.0, baseline: swift, baselineValue: enc.1),
            Bench.Result(name: "c.message.decrypt", unit: "msg/s", value: dec.0, baseline: swift, baselineValue: dec.1),
        ]
    }

    /// The time of the one decision procedure whichever check fails: two keys on headerless text
    /// (`bulkBytes / 2`, 32 MiB by default; both legacy readings with each key), decrypted as text and as a
    /// message. Baseline: every reading fails on padding (made with a third key). Ours: one key's readings pass the
    /// padding and fail on UTF-8 (its last byte is not UTF-8), or, as a message, are UTF-8 and fail on JSON. The
    /// ratio is the baseline's time over ours: 1.0 means the same time.
    func trustFigures() throws -> [Bench.Result] {
        let ring = try KeyRing(["bench-key-a", "bench-key-b"])
        let size = bulkBytes / 2
        let text = [UInt8](repeating: UInt8(ascii: "x"), count: size - 2)
        /// `body + suffix` sealed (fixed IV) with `key`, for the first suffix whose readings give `wanted`.
        func sealed(_ key: String, _ body: [UInt8], _ wanted: (PNCryptError) -> Bool) throws -> [UInt8] {
            for n in 0..<1000 {
                let data = try CryptoModule(cipherKey: key).encryptBinary(body + [UInt8(ascii: "a") + UInt8(n % 26),
                                                                                  0xFF], scheme: Measured.fixedIV)
                do {
                    _ = try ring.decrypt(data, content: .text)
                } catch {
                    if wanted(error) { return data }
                }
            }
            throw PNCryptError(.invalidValue, "no suitable ciphertext")
        }
        // Every reading fails on padding: the third key, and no key of the ring passes (as bytes: failure).
        let paddingFails = try sealed("bench-key-other", text) { _ in true }
        let bytesError = try? ring.decrypt(paddingFails, content: .bytes)
        guard bytesError == nil else { throw PNCryptError(.invalidValue, "a ring key passed the padding") }
        let utf8Fails = try sealed("bench-key-a", text) { $0 == CryptoModule.decryptionFailed }
        // As a message: the same, except that key a's plaintext is UTF-8 text that is not JSON.
        let notJSON = try CryptoModule(cipherKey: "bench-key-a").encryptBinary(text + Array("ab".utf8),
                                                                               scheme: Measured.fixedIV)
        func attempt(_ data: [UInt8], _ content: KeyRing.Content) -> Int {
            (try? ring.decrypt(data, content: content)).map { $0.plaintext.count } ?? 1
        }
        let mb = Double(size) / 1e6
        let utf8 = compare({ rate(1) { attempt(utf8Fails, .text) } * mb },
                           { rate(1) { attempt(paddingFails, .text) } * mb })
        let json = compare({ rate(1) { attempt(notJSON, .json) } * mb },
                           { rate(1) { attempt(paddingFails, .json) } * mb })
        let label = "\(size >> 20) MiB, 2 keys x 2 readings"
        return [
            Bench.Result(name: "trust.text.utf8-fails", unit: "MB/s", value: utf8.0,
                         baseline: "all fail on padding, \(label)", baselineValue: utf8.1),
            Bench.Result(name: "trust.json.json-fails", unit: "MB/s", value: json.0,
                         baseline: "all fail on padding, \(label)", baselineValue: json.1),
        ]
    }

    func bulk() throws -> [Bench.Result] {
        let key = try CipherKey("bench-key")
        var data = [UInt8](repeating: 0, count: bulkBytes)
        for i in stride(from: 0, to: data.count, by: 64) { data[i] = UInt8(truncatingIfNeeded: i >> 6) }
        let sealed = try StreamPipeline.run(data, through: [StreamEncryptor(key: key, scheme: .defaultForWriting)])
        let mb = Double(bulkBytes) / 1e6
        let evpKey = [UInt8](repeating: 7, count: 32)
        let iv = [UInt8](repeating: 1, count: 16)
        let scheme = Scheme.defaultForWriting
        let enc = try compare({ try rate(1) { try discard(data, StreamEncryptor(key: key, scheme: scheme)) } * mb },
                              { rate(1) { Baselines.evpBulk(data, key: evpKey, iv: iv, encrypt: true) } * mb })
        let dec = try compare({ try rate(1) { try discard(sealed, StreamDecryptor(key: key)) } * mb },
                              { rate(1) { Baselines.evpBulk(sealed, key: evpKey, iv: iv, encrypt: false) } * mb })
        return [
            Bench.Result(name: "bulk.encrypt", unit: "MB/s", value: enc.0, baseline: Baselines.bulkLabel,
                baselineValue: enc.1),
            Bench.Result(name: "bulk.decrypt", unit: "MB/s", value: dec.0, baseline: Baselines.bulkLabel,
                baselineValue: dec.1),
        ]
    }

    /// Text mode as the CLI runs it, against the one-shot calls on the whole text in memory: streamed encryption
    /// to Base64 (`TextStreamEncryptor`), and streamed decryption (Base64 decoded into a temporary file, every
    /// reading checked over it, then the winner decrypted again: `TextStreamDecryptor`). Per MB of plaintext.
    func textFigures() throws -> [Bench.Result] {
        let key = try CipherKey("bench-key")
        let line = Array("The quick brown fox jumps over the lazy dog, 0123456789\n".utf8)
        var data: [UInt8] = []
        while data.count < bulkBytes { data += line }
        data = Array(data.prefix(bulkBytes))
        let text = try CryptoModule(key: key).encrypt(data, scheme: .defaultForWriting)
        let base64 = Array(text.utf8)
        let ring = try KeyRing(keys: [key])
        let mb = Double(bulkBytes) / 1e6
        let module = CryptoModule(key: key)
        let scheme = Scheme.defaultForWriting
        let enc = try compare({ try rate(1) { try discard(data, TextStreamEncryptor(key: key, scheme: scheme)) } * mb },
                              { try rate(1) { try module.encrypt(data, scheme: .defaultForWriting).utf8.count } * mb })
        let path = NSTemporaryDirectory() + "pncrypt-bench-\(getpid()).bin"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw PNCryptError(.io, "cannot create \(path)") }
        unlink(path)
        defer { close(fd) }
        let reader = TextStreamDecryptor(ring: ring, reading: .only(.defaultForWriting))
        func streamed() throws -> Int {
            _ = ftruncate(fd, 0)
            let decoded = try StreamPipeline.run(base64, through: [Base64StreamDecoder()])
            decoded.withUnsafeBytes { bytes in _ = pwrite(fd, bytes.baseAddress!, bytes.count, 0) }
            let choice = try reader.choose(ciphertext: fd, length: decoded.count)
            var total = 0
            try reader.write(choice, ciphertext: fd) { total += $0.count }
            return total
        }
        let dec = try compare({ try rate(1) { try streamed() } * mb },
                              { try rate(1) {
                                  try ring.decrypt(try Base64.decode(base64), reading: .only(scheme), content: .text)
                                      .plaintext.count
                              } * mb })
        return [
            Bench.Result(name: "text.encrypt", unit: "MB/s", value: enc.0, baseline: "one-shot encrypt",
                         baselineValue: enc.1),
            Bench.Result(name: "text.decrypt", unit: "MB/s", value: dec.0, baseline: "one-shot decrypt",
                         baselineValue: dec.1),
        ]
    }

    /// Streams `data` through `stage` in 1 MiB chunks, discarding the output, as a file would go.
    func discard(_ data: [UInt8], _ stage: any ByteStreamStage) throws -> Int {
        var total = 0
        let piece = 1 << 20
        try data.withUnsafeBytes { (all: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < all.count {
                let n = min(piece, all.count - offset)
                try stage.update(UnsafeRawBufferPointer(rebasing: all[offset..<offset + n])) { total += $0.count }
                offset += n
            }
            try stage.finish { total += $0.count }
        }
        return total
    }

    /// A history envelope of about 1 MB: `[[{"message": "<b64>", "timetoken": ...}, ...], start, end]`.
    static func historyEnvelope() -> [UInt8] {
        var items: [JSONValue] = []
        var size = 0
        var i: Int64 = 0
        while size < 1_000_000 {
            let item: JSONValue = ["message": .string(Base64.encode(Array("message \(i) ünïcödé 漢語".utf8))),
                                   "timetoken": .number(JSONNumber(13406746729185766 + i)),
                                   "meta": ["user": .string("user-\(i % 97)"), "n": .number(JSONNumber(i))]]
            size += item.serialized().count + 1
            items.append(item)
            i += 1
        }
        return JSONValue.array([.array(items), .number(JSONNumber(13406746729185766)),
                                .number(JSONNumber(13406746729185766 + i))]).serialized()
    }

    func jsonFigures() throws -> [Bench.Result] {
        let text = Self.historyEnvelope()
        let data = Data(text)
        let value = try JSONValue(parsing: text)
        let object = try JSONSerialization.jsonObject(with: data)
        let mb = Double(text.count) / 1e6
        let parse = try compare({ try rate(1) { try JSONValue(parsing: text).arrayValue?.count ?? 0 } * mb },
                                { try rate(1) {
                                    (try JSONSerialization.jsonObject(with: data) as? [Any])?.count ?? 0
                                 } * mb })
        let write = try compare({ rate(1) { value.serialized().count } * mb },
                                { try rate(1) { try JSONSerialization.data(withJSONObject: object).count } * mb })
        return [
            Bench.Result(name: "json.parse", unit: "MB/s", value: parse.0, baseline: "Foundation JSONSerialization",
                baselineValue: parse.1),
            Bench.Result(name: "json.write", unit: "MB/s", value: write.0, baseline: "Foundation JSONSerialization",
                baselineValue: write.1),
        ]
    }
}

extension Suite {
    /// The envelope path against the bare message path, per message (goal: at least 0.8 of it): a v3 fetch
    /// response of 100 bench messages under the default scheme (with timetokens, uuids and meta) checked,
    /// decrypted and written back (`decrypt(envelopeText:)`: the splice path), against the same wire message
    /// through `MessageCrypto.decrypt(jsonText:policy:)` and written (a line of `message decrypt --lines`), and
    /// through the decryption alone; and the tree path (`Envelope` parsed, decrypted, serialized) against the
    /// splice path.
    func envelopeFigures() throws -> [Bench.Result] {
        let work = try MessageWork(.defaultForWriting)
        let count = 100
        let wire = try JSONValue(parsing: work.wire)
        let items: [JSONValue] = (0..<count).map { i in
            ["message": wire, "timetoken": .string(String(17_000_000_000_000_000 + i)),
             "uuid": .string("user-\(i % 7)"), "meta": ["n": .number(JSONNumber(i))]]
        }
        let body = JSONValue.object(["status": 200, "error": false, "error_message": "",
                                     "channels": ["demo": .array(items)]]).serialized()
        func tree() throws -> Int {
            let result = work.crypto.decrypt(envelope: try Envelope(parsing: body), policy: .marker)
            return result.statuses.isEmpty ? result.envelope.json.withSerialized(style: .compact) { $0.count } : 0
        }
        func envelope() throws -> Int {
            let result = try body.withUnsafeBufferPointer { (text) throws(PNCryptError) in
                try work.crypto.decrypt(envelopeText: text, policy: .marker)
            }
            return result.statuses.isEmpty ? result.text.count : 0
        }
        func messages() throws -> Int {
            var n = 0
            for _ in 0..<count {
                let result = try work.crypto.decrypt(jsonText: work.wire, policy: .marker)
                n &+= result.message.withSerialized(style: .compact) { $0.count }
            }
            return n
        }
        let rates = try compare3({ try rate(count) { try envelope() } }, { try rate(count) { try messages() } },
                                 { try rate(count) { try work.decrypt(count) } })
        let trees = try compare({ try rate(count) { try envelope() } }, { try rate(count) { try tree() } })
        let bare = "message.decrypt.\(Scheme.defaultForWriting)"
        return [
            Bench.Result(name: "envelope.decrypt.v3", unit: "msg/s", value: rates.0,
                         baseline: "bare message path, written (\(bare) + write)", baselineValue: rates.1),
            Bench.Result(name: "envelope.decrypt.v3.vs_decrypt_only", unit: "msg/s", value: rates.0,
                         baseline: "bare message path, not written (\(bare))", baselineValue: rates.2),
            Bench.Result(name: "envelope.decrypt.v3.vs_tree", unit: "msg/s", value: trees.0,
                         baseline: "the tree path (Envelope parsed, decrypted, serialized)", baselineValue: trees.1),
        ]
    }

    /// JSON-like text that compresses about as real message history does (roughly 4:1 at level 6).
    static func compressibleText(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 256)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let words = ["alice", "bob", "news", "sport", "weather", "hello", "pubnub", "channel", "message", "ok"]
        while out.count < count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let n = Int(state >> 33)
            let line = "{\"message\":{\"text\":\"\(words[n % 10]) \(words[(n >> 4) % 10]) \(n % 100000)\","
                + "\"user\":\"\(words[(n >> 8) % 10])-\(n % 97)\"},"
                + "\"timetoken\":\(13406746729185766 + n % 1_000_000)},\n"
            out.append(contentsOf: line.utf8)
        }
        return Array(out.prefix(count))
    }

    /// gzip at level 6 through `Compressor`/`Decompressor` (1 MiB chunks in, as a file streams) against
    /// zlib's own deflate/inflate loop on the same bytes.
    func gzipFigures() throws -> [Bench.Result] {
        let text = Self.compressibleText(gzipBytes)
        let packed = try Compressor.compress(text, level: 6)
        let mb = Double(text.count) / 1e6
        let compress = try compare({ try rate(1) { try discard(text, Compressor(level: 6)) } * mb },
                                   { rate(1) { Baselines.zlibCompress(text, level: 6) } * mb })
        let decompress = try compare({ try rate(1) { try discard(packed, Decompressor()) } * mb },
                                     { rate(1) { Baselines.zlibDecompress(packed) } * mb })
        return [
            Bench.Result(name: "gzip.compress", unit: "MB/s", value: compress.0, baseline: "zlib deflate loop, level 6",
                         baselineValue: compress.1),
            Bench.Result(name: "gzip.decompress", unit: "MB/s", value: decompress.0, baseline: "zlib inflate loop",
                         baselineValue: decompress.1),
        ]
    }
}

@inline(never)
func blackHole(_ value: Int) {
    if value == 42_424_242 { print("") }
}
