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
        Text mode reads Base64 (surrounding whitespace, JSON quotes and line breaks are accepted) and writes
        exactly the plaintext bytes, nothing added. Nothing is written unless decryption succeeds.

        --scheme auto (the default) reads a PNED header when there is one; otherwise text is read as legacy
        (fixed IV) and --binary input as the legacy random-IV file format. Nothing in legacy data says whether
        its IV is fixed or random: if auto fails, try --scheme legacy-random-iv. An explicit --scheme reads only
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

    func validate() throws {
        if binary && input.text != nil { throw ValidationError("--binary reads raw bytes from -i PATH or stdin") }
        if binary && scheme == .legacy33 { throw ValidationError("legacy33 has no file format") }
    }

    func run() throws {
        try CLI.run {
            let key = try keys.resolve()
            if binary {
                let decryptor = try StreamDecryptor(key: key, scheme: scheme.scheme)
                let out = try OutputFile(path: output.output, inputPath: input.input)
                if output.output == nil {
                    // Standard output cannot be taken back: hold the plaintext until the padding is verified.
                    let spool = try Spool()
                    try input.withHandle { try StreamPipeline.run(from: $0, through: [decryptor], to: spool.handle) }
                    try spool.copy(to: out.handle)
                } else {
                    try input.withHandle { try StreamPipeline.run(from: $0, through: [decryptor], to: out.handle) }
                }
                try out.commit()
            } else {
                let text = try input.readAll()
                let ciphertext = try Base64.decode(text)
                let module = CryptoModule(key: key)
                let plaintext = if let explicit = scheme.scheme {
                    try module.decrypt(ciphertext, scheme: explicit)
                } else {
                    try module.decrypt(ciphertext)
                }
                let out = try OutputFile(path: output.output, inputPath: input.input)
                try out.write(plaintext)
                try out.commit()
            }
        }
    }
}
