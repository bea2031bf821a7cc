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
                               + "(for scripts/bench/compare.sh and profilers).", valueName: "N"))
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
}

@inline(never)
func blackHole(_ value: Int) {
    if value == 42_424_242 { print("") }
}
