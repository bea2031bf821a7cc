import ArgumentParser
import PNCrypt

struct Decrypt: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decrypt Base64 text, or a file with --binary.",
        discussion: """
        Text mode reads Base64 (surrounding whitespace, JSON quotes and line breaks are accepted) and writes \
        exactly the plaintext bytes, nothing added. Nothing is written unless decryption succeeds.

        --scheme auto (the default) reads a PNED header when there is one. Headerless data is read as \
        --legacy-scheme says. Without it, text is tried both as legacy (fixed IV) and as legacy-random-iv, and \
        decrypted only when exactly one reading gives valid padding and UTF-8 (CBC has no integrity check: a \
        wrong reading can pass the padding check); --binary reads the legacy random-IV file format and says so. \
        With several --key, every key is tried and output is written only when exactly one (key, scheme) \
        reading qualifies; otherwise exit 1, naming the candidates. One key and an explicit --scheme need no \
        choice: valid padding is enough.

        Files (--binary): legacy is the bare ciphertext under the fixed IV, legacy-random-iv the 16-byte IV \
        then the ciphertext, acrh the PNED header then the ciphertext. The key is checked on the file's last two \
        blocks before any plaintext is written, so output goes straight to its destination. Standard input is \
        first copied (ciphertext only) to an unlinked 0600 temporary file. Plaintext touches \
        the disk only in -o's temporary file, and with --gunzip to standard output (held in an unlinked \
        temporary file until it is verified).

        Examples:
          pncrypt decrypt --key enigma q/xJqqN6qbiZMXYmiQC1Fw==
          pncrypt decrypt --key enigma --scheme legacy-random-iv \\
              MTIzNDU2Nzg5MDEyMzQ1NjdnONoCgo0wbuMGGMmfMX0=
          pncrypt decrypt --key-file key.txt --binary -i photo.enc -o photo.jpg
        """)

    @OptionGroup var keys: KeyOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var reading: ReadSchemeOptions

    @Flag(help: "Read a raw file format (legacy, legacy-random-iv or acrh) instead of Base64; streamed.")
    var binary = false

    @Flag(help: "With --binary: decrypt, then decompress gzip (or zlib).")
    var gunzip = false

    @OptionGroup var limits: LimitOptions

    func validate() throws {
        if gunzip && !binary { throw ValidationError("--gunzip needs --binary") }
        if limits.maxSize != nil && !gunzip { throw ValidationError("--max-size goes with --gunzip") }
        if binary && input.text != nil { throw ValidationError("--binary reads raw bytes from -i PATH or stdin") }
        if binary { try Scheme.requireFileFormat(reading.explicit) }
    }

    func run() throws {
        let ring = try keys.ring()
        if binary { return try decryptFile(ring) }
        let ciphertext = try Base64.decode(try input.readAll())
        let match = try ring.decrypt(ciphertext, scheme: reading.explicit, legacyScheme: reading.legacy,
                                     content: .text)
        try OutputFile.write(match.plaintext, to: output, inputPath: input.input)
    }

    /// Chooses the key on the file's final blocks, then streams the whole file once to the output.
    private func decryptFile(_ ring: KeyRing) throws {
        let source = try InputSource(input)
        // With the padding checked before any output, decryption cannot fail any more; decompression still can:
        // its output waits when it goes where it cannot be taken back (standard output, a device, a FIFO).
        try OutputFile.produce(output, inputPath: input.input, holdUntilVerified: gunzip) { out in
            let legacy = reading.legacy ?? .legacyRandomIV
            let match = try ring.fileMatch(head: try source.read(at: 0, count: StreamDecryptor.headLength),
                                           tail: try source.read(at: max(0, source.length - 32), count: 32),
                                           length: source.length, scheme: reading.explicit, legacyScheme: legacy)
            if reading.scheme == .auto, reading.legacy == nil, match.scheme == .legacyRandomIV {
                CLI.note("no PNED header: read as the legacy random-IV file format (IV first); for a file written "
                         + "with the fixed IV, give --legacy-scheme legacy")
            }
            var stages: [any ByteStreamStage] = [try StreamDecryptor(key: ring.keys[match.keyIndex],
                                                                     scheme: reading.explicit, legacyScheme: legacy)]
            if gunzip { stages.append(try GzipDecompressor(outputLimit: limits.limit)) }
            try POSIXIO.stream(from: try source.fromStart(), through: stages, to: out)
        }
    }
}
