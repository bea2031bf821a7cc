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

    /// Text of about `bulkBytes / 4` bytes (lines of ASCII), as `textFigures` makes it.
    private func autoPlaintext() -> [UInt8] {
        let line = Array("The quick brown fox jumps over the lazy dog, 0123456789\n".utf8)
        var data: [UInt8] = []
        let size = bulkBytes / 4
        while data.count < size { data += line }
        return Array(data.prefix(size))
    }

    private func autoText() throws -> Bench.Result {
        let key = try CipherKey("bench-key")
        let scheme = Scheme.headerlessPair.fixed
        let data = autoPlaintext()
        let decoded = try CryptoModule(key: key).encryptBinary(data, scheme: scheme)
        let base64 = Array(Base64.encodeBytes(decoded))
        let ring = try KeyRing(keys: [key])
        let path = NSTemporaryDirectory() + "pncrypt-bench-auto-\(getpid()).bin"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw PNCryptError(.io, "cannot create \(path)") }
        unlink(path)
        defer { close(fd) }
        func streamed(_ reading: ReadPolicy) throws -> Int {
            let reader = TextStreamDecryptor(ring: ring, reading: reading)
            _ = ftruncate(fd, 0)
            let ciphertext = try StreamPipeline.run(base64, through: [Base64StreamDecoder()])
            ciphertext.withUnsafeBytes { bytes in _ = pwrite(fd, bytes.baseAddress!, bytes.count, 0) }
            let choice = try reader.choose(ciphertext: fd, length: ciphertext.count)
            var total = 0
            try reader.write(choice, ciphertext: fd) { total += $0.count }
            guard total == data.count, choice.scheme == scheme else {
                throw PNCryptError(.invalidValue, "auto.text: read as \(choice.scheme), \(total) bytes")
            }
            return total
        }
        let mb = Double(data.count) / 1e6
        let (ours, theirs) = try compare({ try rate(1) { try streamed(.rule) } * mb },
                                         { try rate(1) { try streamed(.only(scheme)) } * mb })
        return Bench.Result(name: "auto.text.\(scheme)", unit: "MB/s", value: ours,
                            baseline: "--scheme \(scheme), \(data.count >> 20) MiB", baselineValue: theirs)
    }

    private func autoFile() throws -> Bench.Result {
        let key = try CipherKey("bench-key")
        let scheme = Scheme.headerlessPair.fixed
        let data = autoPlaintext()
        let file = try CryptoModule(key: key).encryptBinary(data, scheme: scheme)
        let ring = try KeyRing(keys: [key])
        let head = Array(file.prefix(StreamDecryptor.headLength))
        let tail = Array(file.suffix(32))
        func decrypt(_ reading: ReadPolicy) throws -> Int {
            // As `FileDecryption.choose`, then the whole file through the chosen decryptor.
            let match = try ring.fileMatch(head: head, tail: tail, length: file.count, reading: reading)
            let chosen = match.scheme.hasHeader ? reading
                : ReadPolicy(scheme: reading.scheme, legacyScheme: match.scheme)
            let total = try discard(file, StreamDecryptor(key: ring.keys[match.keyIndex], reading: chosen))
            guard total == data.count, match.scheme == scheme else {
                throw PNCryptError(.invalidValue, "auto.file: read as \(match.scheme), \(total) bytes")
            }
            return total
        }
        let mb = Double(data.count) / 1e6
        let (ours, theirs) = try compare({ try rate(1) { try decrypt(.rule) } * mb },
                                         { try rate(1) { try decrypt(.only(scheme)) } * mb })
        return Bench.Result(name: "auto.file.\(scheme)", unit: "MB/s", value: ours,
                            baseline: "--binary --scheme \(scheme), \(data.count >> 20) MiB", baselineValue: theirs)
    }
}
