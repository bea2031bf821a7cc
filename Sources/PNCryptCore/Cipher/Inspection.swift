import PNCryptBase

/// What a piece of ciphertext is, told without a key: its header fields, or its legacy block count.
package struct Inspection: Hashable, Sendable {
    /// The `PNED` header, when the data has one.
    package var header: CryptorHeader?
    /// Bytes the header occupies (0 without a header).
    package var headerLength: Int
    /// Bytes after the header.
    package var ciphertextLength: Int

    /// Whole 16-byte blocks after the header.
    package var blocks: Int { ciphertextLength / Cryptor.blockSize }

    /// Reads what `prefix` (the first bytes of the data; at least the header, when there is one) says about data
    /// of `totalLength` bytes.
    /// - Throws: `malformedHeader` for a header cut short; `unknownCryptor` for an unknown version or cryptor;
    ///   `wrongKeyOrCorrupt` when the ciphertext is empty or not a whole number of blocks.
    package init(prefix: some Collection<UInt8>, totalLength: Int) throws(PNCryptError) {
        if let (header, length) = try CryptorHeader.parse(prefix) {
            _ = try header.scheme(reading: nil)
            self.header = header
            headerLength = length
        } else {
            header = nil
            headerLength = 0
        }
        ciphertextLength = totalLength - headerLength
        try Cryptor.checkBlocks(ciphertextLength, after: header == nil ? .fixed : .header)
    }

    /// Reads what `data` is.
    package init(_ data: some Collection<UInt8>) throws(PNCryptError) {
        try self.init(prefix: data, totalLength: data.count)
    }

    /// A few lines for a person.
    package var lines: [String] {
        guard let header else {
            // Only what the bytes say: nothing without a key tells whether they are ciphertext at all.
            var lines = ["no PNED header; if this is pncrypt or PubNub ciphertext it is legacy data, \(blocks) block"
                         + (blocks == 1 ? ", IV fixed (too short for a random IV)" : "s, IV fixed or random")]
            if blocks >= 2 {
                lines.append("legacy (fixed IV): \(blocks) blocks of ciphertext;"
                             + " legacy-random-iv: a 16-byte IV, then \((blocks - 1).counting("block"))")
                // The last two blocks are the same in both readings: so is the padding, whatever the key.
                lines.append("without the key nothing says which: both readings have valid padding with the right key,"
                             + " and differ only at the start (the fixed-IV reading has 16 more plaintext bytes);"
                             + " with it, the headerless rule reads that start (docs/formats.md), or choose with"
                             + " --scheme or --legacy-scheme, as the writing client was set")
            }
            return lines
        }
        return [
            "PNED header: version \(header.version), cryptor \(header.cryptorIDDescription),"
                + " metadata \(header.metadata.count.counting("byte")) (header \(headerLength) bytes)",
            "iv: \(Hex.encode(header.metadata))",
            "ciphertext: \(ciphertextLength.counting("byte")), \(blocks.counting("block"))",
        ]
    }
}
