import ArgumentParser
import Foundation
import PNCrypt

/// `--scheme` for reading: a scheme, or `auto`.
enum ReadScheme: String, ExpressibleByArgument, CaseIterable {
    case auto, legacy, legacyRandomIV = "legacy-random-iv", acrh, legacy33

    var scheme: Scheme? { Scheme(rawValue: rawValue) }
}

/// `--legacy-scheme`: how `auto` reads data without a `PNED` header, as a client's legacy cryptor is set.
enum LegacyScheme: String, ExpressibleByArgument, CaseIterable {
    case legacy, legacyRandomIV = "legacy-random-iv"

    var scheme: Scheme { self == .legacy ? .legacy : .legacyRandomIV }

    /// `--legacy-scheme` says how `auto` reads headerless data: with an explicit `--scheme` it is a usage error.
    static func validate(_ legacy: LegacyScheme?, with scheme: ReadScheme) throws {
        if legacy != nil && scheme != .auto {
            throw ValidationError("--legacy-scheme goes with --scheme auto (it says how headerless data is read)")
        }
    }
}

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
    @OptionGroup var progress: ProgressOptions

    @Option(help: "auto (default), legacy, legacy-random-iv, acrh or legacy33.")
    var scheme: ReadScheme = .auto

    @Option(name: .customLong("legacy-scheme"), help: ArgumentHelp(
        "With auto: read data without a PNED header as legacy (fixed IV) or legacy-random-iv.", valueName: "scheme"))
    var legacyScheme: LegacyScheme?

    @Flag(help: "Read a raw file format (legacy, legacy-random-iv or acrh) instead of Base64; streamed.")
    var binary = false

    @Flag(help: "With --binary: decrypt, then decompress gzip (or zlib).")
    var gunzip = false

    @Option(name: .customLong("max-size"),
            help: ArgumentHelp(MaxSize.help("With --gunzip: refuse"), valueName: "size"), transform: MaxSize.parse)
    var maxSize: MaxSize?

    func validate() throws {
        if gunzip && !binary { throw ValidationError("--gunzip needs --binary") }
        if maxSize != nil && !gunzip { throw ValidationError("--max-size goes with --gunzip") }
        if binary && input.text != nil { throw ValidationError("--binary reads raw bytes from -i PATH or stdin") }
        if binary && scheme == .legacy33 { throw ValidationError("legacy33 has no file format") }
        try LegacyScheme.validate(legacyScheme, with: scheme)
    }

    func run() throws {
        try CLI.run {
            let ring = try KeyRing(keys: try keys.resolveAll())
            if binary {
                try decryptFile(ring)
            } else {
                let ciphertext = try Base64.decode(try input.readAll())
                let match = try ring.decrypt(ciphertext, scheme: scheme.scheme, legacyScheme: legacyScheme?.scheme,
                                             content: .text)
                let out = try OutputFile(path: output.output, inputPath: input.input, durable: output.sync)
                try out.write(match.plaintext)
                try out.commit()
            }
        }
    }

    /// Chooses the key on the file's final blocks, then streams the whole file once to the output.
    private func decryptFile(_ ring: KeyRing) throws {
        let source = try InputSource(input)
        let out = try OutputFile(path: output.output, inputPath: input.input, durable: output.sync)
        let head = try source.read(at: 0, count: StreamDecryptor.headLength)
        let tail = try source.read(at: max(0, source.length - 32), count: 32)
        let legacy = legacyScheme?.scheme ?? .legacyRandomIV
        var qualifying: [(index: Int, scheme: Scheme)] = []
        for (index, key) in ring.keys.enumerated() {
            let check = try StreamDecryptor.checkPadding(key: key, head: head, tail: tail, length: source.length,
                                                         scheme: scheme.scheme, legacyScheme: legacy)
            if check.valid { qualifying.append((index, check.scheme)) }
        }
        if let found = qualifying.first?.scheme, scheme == .auto, legacyScheme == nil, found == .legacyRandomIV {
            CLI.note("no PNED header: read as the legacy random-IV file format (IV first); for a file written "
                     + "with the fixed IV, give --legacy-scheme legacy")
        }
        guard qualifying.count == 1 else {
            if qualifying.isEmpty { throw CryptoModule.decryptionFailed }
            let names = qualifying.map { "key #\($0.index + 1)" }.joined(separator: ", ")
            throw PNCryptError(.ambiguous, "ambiguous: \(qualifying.count) keys give valid padding (\(names)); "
                               + "nothing was written")
        }
        let key = ring.keys[qualifying[0].index]
        // With the padding checked, decryption cannot fail any more; decompression still can: hold its output
        // when it goes where it cannot be taken back (standard output, a device, a FIFO).
        let spool = gunzip && out.needsSpool ? try Spool() : nil
        var stages: [any ByteStreamStage] = [try StreamDecryptor(key: key, scheme: scheme.scheme, legacyScheme: legacy)]
        if gunzip { stages.append(try GzipDecompressor(outputLimit: (maxSize ?? .standard).limit)) }
        let line = progress.line(for: input.input, showsLines: false)
        defer { line.clear() }
        try StreamPipeline.run(from: try source.handleFromStart(), through: stages, to: spool?.handle ?? out.handle,
                               progress: { line.update(bytes: $0) })
        line.clear()
        try spool?.copy(to: out.handle)
        try out.commit()
    }
}
