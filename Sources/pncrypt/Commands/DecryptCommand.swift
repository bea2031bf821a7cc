import ArgumentParser
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

struct DecryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Decrypt Base64 text, or a file with --binary.",
        // Written out because with more than 12 options ArgumentParser shortens the usage to `[<options>]`: the
        // key options stay visible (both repeat).
        usage: "pncrypt decrypt [--key <key> ...] [--key-file <path> ...] [--binary] [<options>] [<text-or-path> ...]",
        discussion: """
        Text mode reads Base64 (surrounding whitespace, JSON quotes and line breaks are accepted) and writes \
        exactly the plaintext bytes, nothing added. Nothing is written unless decryption succeeds. Text of any \
        size is decrypted in bounded memory: the Base64 is decoded into an unlinked 0600 temporary file \
        (ciphertext only), every reading is checked over all of it, and only then is the plaintext written. On a \
        terminal, control characters other than newline and tab are shown as \\xNN (--raw-control writes them \
        as they are); pipes and files get the exact bytes.

        --scheme auto (the default) reads a PNED header when there is one. Headerless data is read as \
        --legacy-scheme says. Without it, text is tried both as legacy (fixed IV) and as legacy-random-iv, and \
        decrypted only when exactly one reading gives valid padding and UTF-8 (CBC has no integrity check: a \
        wrong reading can pass the padding check); --binary reads the legacy random-IV file format and says so. \
        With several --key, every key is tried and output is written only when exactly one (key, scheme) \
        reading qualifies; otherwise exit 1, naming the candidates. The same rules hold with one key and an \
        explicit --scheme: text mode writes only valid UTF-8 (a binary plaintext needs --binary), --binary \
        checks the padding.

        Files (--binary: the file named, -i PATH or standard input): legacy is the bare ciphertext under the \
        fixed IV, legacy-random-iv the 16-byte IV then the ciphertext, acrh the PNED header then the \
        ciphertext. The key is checked on the file's last two blocks before any plaintext is written, so output \
        goes straight to its destination; it is not written to a terminal without -f. Standard input is first \
        copied (ciphertext only) to an unlinked 0600 temporary file. Plaintext touches the disk only in -o's \
        temporary file, and with --gunzip to standard output (held in an unlinked temporary file until it is \
        verified). With no key given, the key is asked for on the terminal.

        Several TEXT arguments are decrypted one per line, in order, and only when all of them decrypt: if one \
        fails, nothing is written and the failure names it by position. A file given with -i that starts with a \
        PNED header or holds a byte Base64 text never does is raw ciphertext (as an SDK's encrypt_file writes): \
        it is not Base64-decoded, and without --binary it is still decrypted as text, so a binary plaintext is \
        refused (the one decryption failure, and a hint naming --binary). The input's first bytes decide only how \
        it is encoded, never whether the plaintext must be text. A TEXT argument that names a file and is not \
        Base64 is refused (give the file with -i). Line mode (NDJSON, one message per line) is pncrypt message \
        decrypt --lines.

        Examples:
          pncrypt decrypt --key enigma q/xJqqN6qbiZMXYmiQC1Fw==
          pncrypt decrypt -k enigma --legacy-scheme legacy-random-iv -i message.txt
          pncrypt decrypt --key-file key.txt --binary photo.enc -o photo.jpg
        """)

    @OptionGroup var options: DataOptions<DecryptInputOptions, ReadSchemeOptions>

    @Flag(help: "Read a raw file format (legacy, legacy-random-iv or acrh) instead of Base64; streamed.")
    var binary = false

    @Flag(help: "With --binary: decrypt, then decompress gzip (or zlib).")
    var gunzip = false

    @OptionGroup var terminal: RawControlOption

    @OptionGroup var limits: LimitOptions

    /// Not here: `--lines` is `message decrypt`'s (a usage error that names it, not "unknown option").
    @Flag(name: .customLong("lines"), help: ArgumentHelp(
        "Line mode (NDJSON) is pncrypt message decrypt --lines.", visibility: .hidden))
    var lines = false

    func validate() throws {
        if lines {
            throw ValidationError("decrypt reads one ciphertext (or several, one per argument); line mode (NDJSON, "
                                  + "one message per line) is pncrypt message decrypt --lines")
        }
        if options.input.arguments.count > 1 && binary {
            throw ValidationError("--binary reads one file: give one path")
        }
        // A gzip plaintext is binary: text mode (whatever the input's encoding) never writes one.
        if gunzip && !binary { throw ValidationError("--gunzip needs --binary") }
        if limits.maxSize != nil && !gunzip { throw ValidationError("--max-size goes with --gunzip") }
        if terminal.rawControl && binary {
            throw ValidationError("--raw-control goes with text mode (--binary writes bytes)")
        }
        if binary {
            try Scheme.requireFileFormat(options.schemes.explicit)
            try options.force.check(options.output)
        }
    }

    mutating func run() throws {
        if !binary { for argument in options.input.arguments { try refuseFileNameAsText(argument) } }
        if options.input.arguments.count > 1 {
            let ring = try options.keys.ring(input: Input(text: options.input.arguments[0], path: nil))
            return try decryptTexts(ring, options.input.arguments)
        }
        let data = try options.input.resolved(binary: binary)
        let ring = try options.keys.ring(input: data)
        if binary { return try decryptFile(ring, data) }
        // Detection decides the input's encoding only (raw ciphertext or Base64): either way it is text.
        try decryptText(ring, data, raw: try data.rawCiphertextReason())
    }

    /// Several TEXT arguments: each decrypted as one text is, into memory (a message is small), and written one
    /// per line only when every one has decrypted; the first that fails is named by position, and nothing is
    /// written.
    private func decryptTexts(_ ring: KeyRing, _ texts: [String]) throws {
        var plaintexts: [[UInt8]] = []
        defer { for index in plaintexts.indices { wipe(&plaintexts[index]) } }
        for (index, text) in texts.enumerated() {
            let data = Input(text: text, path: nil)
            do {
                var plaintext: [UInt8] = []
                try withChoice(ring, data) { reader, choice, fd in
                    try reader.write(choice, ciphertext: fd) { (bytes) throws(PNCryptError) in plaintext += bytes }
                }
                plaintexts.append(plaintext)
                wipe(&plaintext)
            } catch {
                var failure = (error as? CLIFailure) ?? (error as? PNCryptError).map { CLIFailure($0) }
                    ?? CLIFailure(.ioError, "\(error)")
                failure.message = "argument #\(index + 1) of \(texts.count): " + failure.message
                    + "; nothing was written"
                throw failure
            }
        }
        try OutputFile.produce(options.output, input: Input(text: texts[0], path: nil)) { out in
            let escaper = TerminalEscaper.forOutput(out, raw: terminal.rawControl)
            let sink = out.sink(through: escaper)
            // Each plaintext, then its newline (no copy of the plaintext is made: the array is wiped on return).
            let newline: [UInt8] = [0x0A]
            for plaintext in plaintexts {
                try plaintext.withUnsafeBytes { try sink($0) }
                try newline.withUnsafeBytes { try sink($0) }
            }
            try out.finish(through: escaper)
        }
    }

    /// Copies the ciphertext of `data` into an unlinked 0600 temporary file (ciphertext only: the Base64 decoded,
    /// or raw ciphertext as it is, `raw` saying why it is raw), chooses the one reading that qualifies as text over
    /// all of it, and runs `body` with that reading and the file.
    private func withChoice(_ ring: KeyRing, _ data: Input, raw: String? = nil,
                            _ body: (TextStreamDecryptor, TextStreamDecryptor.Choice, FileDescriptor) throws -> Void)
        throws {
        let fd = try InputFiles.unlinkedTemporary()
        defer { try? fd.close() }
        let stages: [any ByteStreamStage] = raw == nil ? [Base64StreamDecoder()] : []
        if let text = data.text {
            try fd.writeAll(try StreamPipeline.run(Array(text.utf8), through: stages), naming: "a temporary file")
        } else {
            let line = options.progress.line(for: data.filePath, showsLines: false)
            try data.withDescriptor { try $0.stream(through: stages, to: fd, progress: line) }
        }
        let length = Int(lseek(fd.rawValue, 0, SEEK_END))
        let head = try InputFiles.read(fd, at: 0, count: StreamDecryptor.headLength, length: length, "a temporary file")
        let reader = TextStreamDecryptor(ring: ring, reading: try options.schemes.policy)
        // The library's rule says when a binary plaintext is plausible (raw input, or longer than any message).
        let binary = FailureHint.binaryPlaintextPlausible(raw: raw != nil, ciphertextCount: length,
                                                          keyHint: KeyShapeHints.line)
        let hint = binary ? raw.map { data.rawAsTextHint($0) } ?? data.longTextHint : nil
        let choice = try explained({ head }, hint: hint) {
            try reader.choose(ciphertext: fd, length: length)
        }
        try body(reader, choice, fd)
    }

    /// Copies the ciphertext into an unlinked 0600 temporary file (the Base64 decoded, or raw ciphertext as it is),
    /// chooses the one reading that qualifies as text over all of it, and only then streams that reading's
    /// plaintext to the output: any size in bounded memory, nothing written before the verdict.
    /// Binary data read as Base64 text (standard input, a pipe, a file with a stray byte past the first 64 KiB) fails
    /// on its first byte that is no character at all (`unexpected byte 0x01`): the failure names `--binary`.
    private func decryptText(_ ring: KeyRing, _ data: Input, raw: String?) throws {
        do {
            try withChoice(ring, data, raw: raw) { reader, choice, fd in
                try OutputFile.produce(options.output, input: data) { out in
                    let escaper = TerminalEscaper.forOutput(out, raw: terminal.rawControl)
                    try reader.write(choice, ciphertext: fd, to: out.sink(through: escaper))
                    try out.finish(through: escaper)
                }
            }
        } catch let error as PNCryptError where error.code == .notBase64
                    && error.message.utf8.containsRun("unexpected byte".utf8) && data.text == nil {
            var failure = CLIFailure(error)
            failure.message += "; \(data.describe) holds binary data, not Base64 text: give --binary to read it "
                + "as a binary file"
            throw failure
        }
    }

    /// Chooses the key on the file's final blocks, then streams the whole file once to the output.
    private func decryptFile(_ ring: KeyRing, _ data: Input) throws {
        let source = try InputSource(data)
        // With the padding checked before any output, decryption cannot fail any more; decompression still can:
        // its output waits when it goes where it cannot be taken back (standard output, a device, a FIFO).
        try OutputFile.produce(options.output, input: data, binary: options.force, holdUntilVerified: gunzip) { out in
            let choice = try explained({ try source.read(at: 0, count: StreamDecryptor.headLength) }) {
                try FileDecryption.choose(source, ring: ring, reading: try options.schemes.policy)
            }
            if options.schemes.scheme == .auto, options.schemes.headerless == nil, choice.scheme.row.iv == .prefix {
                CLI.note("no PNED header, and the first 16 bytes read with the fixed IV look like a decrypted IV: "
                         + "read as the "
                         + "legacy random-IV file format (the first 16 bytes are the IV, as the SDKs write files); a "
                         + "binary file written with the fixed IV would lose its first 16 bytes this way: read it "
                         + "with --legacy-scheme legacy")
            }
            var stages: [any ByteStreamStage] = [choice.decryptor]
            if gunzip { stages.append(try Decompressor(outputLimit: limits.limit)) }
            let start = try source.fromStart()
            try start.fd.stream(through: stages, to: out, length: start.length,
                                progress: options.progress.line(for: data.filePath, showsLines: false))
        }
    }

    /// Runs `body`; when it fails under an explicit `--scheme` that is not the one of the data (a `PNED` header, or
    /// none), says so instead, with the option that reads it (a header is public: this tells nothing about the key).
    /// Text that no key reads otherwise gets the one public failure and the command that says why, and `hint` (raw
    /// ciphertext read as text: `--binary`), the same for every such failure.
    private func explained<R>(_ data: () throws -> [UInt8], hint: String? = nil, _ body: () throws -> R) throws
        -> R {
        do {
            return try body()
        } catch let error as PNCryptError {
            if error.code == .unknownCryptor, let scheme = options.schemes.explicit, scheme.hasHeader,
               let head = try? data(), !head.starts(with: CryptorHeader.sentinel) {
                var failure = CLIFailure(error)
                failure.message += "; read legacy data with --scheme auto (the default) or --scheme legacy /"
                    + " legacy-random-iv"
                throw failure
            }
            guard error.category == .decryption, let scheme = options.schemes.explicit, !scheme.hasHeader,
                  let head = try? data(), let (header, _) = try? CryptorHeader.parse(head) else {
                if error == CryptoModule.decryptionFailed && !binary {
                    var failure = CLIFailure(error)
                    failure.message += " (\(AllowFailuresOption.diagnoseHint))"
                    failure.hint = hint
                    throw failure
                }
                throw error
            }
            throw CLIFailure(.dataFailure, "decryption error: the data starts with a PNED header (cryptor "
                             + "\(header.cryptorIDDescription)): it is acrh data, not \(scheme); read it with "
                             + "--scheme acrh or --scheme auto")
        }
    }
}
