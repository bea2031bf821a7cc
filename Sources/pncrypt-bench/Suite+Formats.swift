import Foundation
import PNCrypt

extension Suite {
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
