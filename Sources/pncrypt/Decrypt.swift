import ArgumentParser
import Foundation
import PNCrypt

/// `--scheme` for reading: a scheme, or `auto`.
enum ReadScheme: String, ExpressibleByArgument, CaseIterable {
    case auto, legacy, legacyRandomIV = "legacy-random-iv", acrh, legacy33

    var scheme: Scheme? { Scheme(rawValue: rawValue) }
}

struct Decrypt: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decrypt Base64 text, or a file with --binary.",
        discussion: """
        Text mode reads Base64 (surrounding whitespace, JSON quotes and line breaks are accepted) and writes \
        exactly the plaintext bytes, nothing added. Nothing is written unless decryption succeeds.

        --scheme auto (the default) reads a PNED header when there is one; otherwise text is read as legacy \
        (fixed IV) and --binary input as the legacy random-IV file format. Nothing in legacy data says whether \
        its IV is fixed or random: if auto fails, try --scheme legacy-random-iv. An explicit --scheme reads only \
        that format.

        Examples:
          pncrypt decrypt --key enigma q/xJqqN6qbiZMXYmiQC1Fw==
          pncrypt decrypt --key enigma --scheme legacy-random-iv MTIzNDU2Nzg5MDEyMzQ1NjdnONoCgo0wbuMGGMmfMX0=
          pncrypt decrypt --key-file key.txt --binary -i photo.enc -o photo.jpg
        """)

    @OptionGroup var keys: KeyOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "auto (default), legacy, legacy-random-iv, acrh or legacy33.")
    var scheme: ReadScheme = .auto

    @Flag(help: "Read a raw file format (legacy random-IV or acrh) instead of Base64; streamed.")
    var binary = false

    @Flag(help: "With --binary: decrypt, then decompress gzip (or zlib).")
    var gunzip = false

    @Option(name: .customLong("max-size"), help: ArgumentHelp(
        "With --gunzip: refuse output larger than this many bytes.", valueName: "bytes"))
    var maxSize: Int?

    func validate() throws {
        if gunzip && !binary { throw ValidationError("--gunzip needs --binary") }
        if maxSize != nil && !gunzip { throw ValidationError("--max-size goes with --gunzip") }
        if binary && input.text != nil { throw ValidationError("--binary reads raw bytes from -i PATH or stdin") }
        if binary && scheme == .legacy33 { throw ValidationError("legacy33 has no file format") }
    }

    func run() throws {
        try CLI.run {
            let ring = try KeyRing(keys: try keys.resolveAll())
            if binary {
                try decryptStream(ring)
            } else {
                let ciphertext = try Base64.decode(try input.readAll())
                let match = try ring.decrypt(ciphertext, scheme: scheme.scheme)
                let out = try OutputFile(path: output.output, inputPath: input.input, durable: output.sync)
                try out.write(match.plaintext)
                try out.commit()
            }
        }
    }

    /// Streams the file through each key in turn until one decrypts it; the output is kept only on success.
    private func decryptStream(_ ring: KeyRing) throws {
        if ring.keys.count > 1 && input.input == nil {
            throw ValidationError("several keys with --binary need -i PATH: the input is read again for each key")
        }
        let out = try OutputFile(path: output.output, inputPath: input.input, durable: output.sync)
        // Standard output (or a device, a FIFO) cannot be taken back: hold the plaintext until it is verified.
        let spool = out.needsSpool ? try Spool() : nil
        let target = spool?.handle ?? out.handle
        var firstError: PNCryptError?
        for key in ring.keys {
            do {
                try input.withHandle { handle in
                    if ring.keys.count > 1 {
                        try handle.seek(toOffset: 0)
                        try target.truncate(atOffset: 0)
                    }
                    var stages: [any ByteStreamStage] = [try StreamDecryptor(key: key, scheme: scheme.scheme)]
                    if gunzip { stages.append(try GzipDecompressor(outputLimit: maxSize)) }
                    try StreamPipeline.run(from: handle, through: stages, to: target)
                }
                try spool?.copy(to: out.handle)
                return try out.commit()
            } catch let error as PNCryptError
                where error.category == .decryption || (gunzip && error.code == .corruptCompressedData) {
                firstError = firstError ?? error
                if error.code != .wrongKeyOrCorrupt && error.code != .corruptCompressedData { break }
            }
        }
        let error = firstError!
        guard ring.keys.count > 1 else { throw error }
        throw PNCryptError(error.code, "no key decrypts this (tried \(ring.keys.count) keys): \(error.message)")
    }
}
