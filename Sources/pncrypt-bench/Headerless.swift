import CPNCryptHeader
import Foundation
import PNCrypt

extension Suite {
    /// Texts as people write them in several scripts (the shape of the tests' and the Python suite's).
    static let headerlessWords: [[String]] = [
        "hello world the message is here and we will meet at noon today", "Grüße aus München schöne Tage für euch",
        "Привет мир это тестовое сообщение как дела",
        "こんにちは 世界 今日 は いい 天気 です ね",
        "今天 天气 很好 我们 去 公园 玩 吧",
        "안녕하세요 세계 오늘은 좋은 날 입니다",
        "مرحبا بالعالم كيف حالك اليوم",
        "Γειά σου Κόσμε τι κάνεις σήμερα", "🎉 party time 🚀 launch at 10:00 ✅ done 👍",
        "Order #4521 shipped to user@example.com total $108.25 (tax incl.)",
    ].map { $0.split(separator: " ").map(String.init) }

    /// The headerless rule on a large count of texts of 2 to 10 blocks, each written with the fixed IV and with a
    /// random one, read with no scheme named through the C batch call (`pncrypt_decrypt_many_text`, Python's
    /// `decrypt_many(text=True)`), in batches of 10,000: every plaintext must come back whole (the run fails on one
    /// that does not), and the figure is that rate against the same batches read with the scheme named (one
    /// reading, no rule). The label counts what the rule left `ambiguous`.
    func headerlessFigures(count: Int) throws -> [Bench.Result] {
        var module: OpaquePointer?
        guard pncrypt_module_new("bench-key", Scheme.defaultForWriting.rawValue, &module, nil) == 0, let module else {
            throw PNCryptError(.invalidValue, "pncrypt_module_new failed")
        }
        defer { pncrypt_module_free(module) }
        let sealer = try CryptoModule(cipherKey: "bench-key")
        var state: UInt64 = 30
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        func text(blocks: Int) -> String {
            let words = Self.headerlessWords[next(Self.headerlessWords.count)]
            let target = (blocks - 1) * 16 + next(16)
            var text = ""
            while text.utf8.count < target {
                if !text.isEmpty { text += next(8) == 0 ? ", " : " " }
                text += words[next(words.count)]
            }
            var cut = ""
            for character in text where cut.utf8.count + String(character).utf8.count <= target {
                cut.append(character)
            }
            return cut.isEmpty ? text : cut
        }
        let batchSize = min(10_000, count)
        var results: [Bench.Result] = []
        for scheme in [Scheme.headerlessPair.fixed, Scheme.headerlessPair.random] {
            var wrong = 0
            var ambiguous = 0
            var autoSeconds = 0.0
            var namedSeconds = 0.0
            var done = 0
            while done < count {
                let texts = (0..<batchSize).map { text(blocks: 2 + ($0 + done) % 9) }
                var data: [CChar] = []
                var lengths: [Int] = []
                for item in texts {
                    let sealed = try sealer.encrypt(Array(item.utf8), scheme: scheme)
                    data += sealed.utf8.map { CChar(bitPattern: $0) }
                    lengths.append(sealed.utf8.count)
                }
                func decrypt(_ named: Scheme?) -> (seconds: Double, out: [UInt8], offsets: [Int], codes: [Int32]) {
                    var out: UnsafeMutablePointer<UInt8>?
                    var offsets = [Int](repeating: 0, count: batchSize + 1)
                    var codes = [Int32](repeating: 0, count: batchSize)
                    var status = pncrypt_error()
                    let start = ContinuousClock.now
                    _ = pncrypt_decrypt_many_text(module, named?.rawValue, data, data.count, lengths, batchSize, &out,
                                                  &offsets, &codes, &status)
                    let elapsed = ContinuousClock.now - start
                    let bytes = out.map { Array(UnsafeBufferPointer(start: $0, count: offsets[batchSize])) } ?? []
                    pncrypt_free(out)
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                    return (seconds, bytes, offsets, codes)
                }
                let auto = decrypt(nil)
                namedSeconds += decrypt(scheme).seconds
                autoSeconds += auto.seconds
                for (index, item) in texts.enumerated() {
                    if auto.codes[index] == PNCRYPT_E_AMBIGUOUS {
                        ambiguous += 1
                    } else if auto.codes[index] != 0
                                || !auto.out[auto.offsets[index]..<auto.offsets[index + 1]].elementsEqual(item.utf8) {
                        wrong += 1
                    }
                }
                done += batchSize
            }
            guard wrong == 0 else {
                throw PNCryptError(.invalidValue, "the headerless rule read \(wrong) of \(count) \(scheme) texts wrong")
            }
            results.append(Bench.Result(
                name: "headerless.rule.\(scheme)", unit: "msg/s", value: Double(done) / autoSeconds,
                baseline: "the scheme named; \(done) texts: 0 wrong, \(ambiguous) ambiguous",
                baselineValue: Double(done) / namedSeconds))
        }
        return results
    }
}
