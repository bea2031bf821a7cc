import Foundation
import PNCrypt
import PNCryptFiles

extension Suite {
    /// Auto mode (no scheme named: a `PNED` header when there is one, else both legacy readings and the
    /// headerless rule) against the scheme named, on the same data in the same run, as the CLI reads it. The ratio
    /// is auto's rate over the named one's (1.0: auto costs nothing more; issue 49's target: at least 0.80, that is
    /// auto at most 1.25x the time).
    /// - `auto.lines.<scheme>`: `message decrypt --lines --jobs 1` (`MessageStream`, policy `.marker`) on
    ///   20,000 copies of the ~100-byte message, against `--scheme <scheme>`. `legacy`: both legacy readings and
    ///   the rule; `acrh`: the header read (goal: within 5 %).
    /// - `auto.text.legacy`: `decrypt` of Base64 text (`TextStreamDecryptor`: decoded to a temporary file, every
    ///   reading checked over all of it, the winner decrypted again), text written with the fixed IV.
    /// - `auto.file.legacy`: `decrypt --binary` (`KeyRing.fileMatch` on the head and last two blocks, then
    ///   `StreamDecryptor` over the whole file, output discarded), a file written with the fixed IV.
    func autoFigures() throws -> [Bench.Result] {
        var results: [Bench.Result] = []
        for scheme in [Scheme.headerlessPair.fixed, Scheme.withHeader] {
            results.append(try autoLines(scheme))
        }
        results.append(try autoText())
        results.append(try autoFile())
        return results
    }

    private func autoLines(_ scheme: Scheme) throws -> Bench.Result {
        let sealer = try MessageCrypto(cipherKey: "bench-key", scheme: scheme, reading: .only(scheme))
        let wire = try sealer.publishBody(Suite.message)
        let count = 20_000
        let wireLines = Array([[UInt8]](repeating: wire + [0x0A], count: count).joined())
        // As the CLI makes them: auto reads by the rule and writes the default; named reads that scheme only.
        let auto = try MessageCrypto(cipherKey: "bench-key", scheme: .defaultForWriting, reading: .rule)
        let named = try MessageCrypto(cipherKey: "bench-key", scheme: scheme, reading: .only(scheme))
        // Every line must decrypt: a failed one is written with a status, so its output differs in length from
        // the named run's, which is checked too (the message written back once per line).
        let expected = count * (Suite.message.serialized().count + 1)
        func stream(_ crypto: MessageCrypto) throws -> Int {
            let session = try MessageStream(.decrypt(crypto, policy: .marker), jobs: 1).makeSession()
            var total = 0
            try wireLines.withUnsafeBytes { (bytes) throws in try session.update(bytes) { total &+= $0.count } }
            try session.finish { total &+= $0.count }
            guard total == expected else {
                throw PNCryptError(.invalidValue, "auto.lines.\(scheme): \(total) bytes out, not \(expected)")
            }
            return total
        }
        let (ours, theirs) = try compare({ try rate(count) { try stream(auto) } },
                                         { try rate(count) { try stream(named) } })
        return Bench.Result(name: "auto.lines.\(scheme)", unit: "msg/s", value: ours,
                            baseline: "--scheme \(scheme), --jobs 1", baselineValue: theirs)
    }

    /// Auto against the scheme named on a plaintext of `count` bytes: `read(policy)` decrypts it once and returns
    /// the scheme it read and the bytes out, which must be `scheme` and `count` under both policies.
    private func autoAgainstNamed(_ name: String, baseline: String, count: Int, scheme: Scheme,
                                  _ read: (ReadPolicy) throws -> (scheme: Scheme, count: Int)) throws -> Bench.Result {
        func checked(_ reading: ReadPolicy) throws -> Int {
            let (read, total) = try read(reading)
            guard total == count, read == scheme else {
                throw PNCryptError(.invalidValue, "\(name): read as \(read), \(total) bytes")
            }
            return total
        }
        let mb = Double(count) / 1e6
        let (ours, theirs) = try compare({ try rate(1) { try checked(.rule) } * mb },
                                         { try rate(1) { try checked(.only(scheme)) } * mb })
        return Bench.Result(name: name, unit: "MB/s", value: ours, baseline: baseline, baselineValue: theirs)
    }

    private func autoText() throws -> Bench.Result {
        let key = try CipherKey("bench-key")
        let scheme = Scheme.headerlessPair.fixed
        let data = Self.asciiText(bulkBytes / 4)
        let decoded = try CryptoModule(key: key).encryptBinary(data, scheme: scheme)
        let base64 = Array(Base64.encodeBytes(decoded))
        let ring = try KeyRing(keys: [key])
        let scratch = try ScratchFile("auto")
        return try autoAgainstNamed("auto.text.\(scheme)", baseline: "--scheme \(scheme), \(data.count >> 20) MiB",
                                    count: data.count, scheme: scheme) { reading in
            try scratch.decryptText(base64, with: TextStreamDecryptor(ring: ring, reading: reading))
        }
    }

    private func autoFile() throws -> Bench.Result {
        let key = try CipherKey("bench-key")
        let scheme = Scheme.headerlessPair.fixed
        let data = Self.asciiText(bulkBytes / 4)
        let file = try CryptoModule(key: key).encryptBinary(data, scheme: scheme)
        let ring = try KeyRing(keys: [key])
        let head = Array(file.prefix(StreamDecryptor.headLength))
        let tail = Array(file.suffix(32))
        return try autoAgainstNamed("auto.file.\(scheme)",
                                    baseline: "--binary --scheme \(scheme), \(data.count >> 20) MiB",
                                    count: data.count, scheme: scheme) { reading in
            // As `FileDecryption.choose`, then the whole file through the chosen decryptor.
            let match = try ring.fileMatch(head: head, tail: tail, length: file.count, reading: reading)
            let chosen = match.scheme.hasHeader ? reading
                : ReadPolicy(scheme: reading.scheme, legacyScheme: match.scheme)
            return (match.scheme, try discard(file, StreamDecryptor(key: ring.keys[match.keyIndex], reading: chosen)))
        }
    }
}
