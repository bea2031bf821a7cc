import ArgumentParser
import Foundation
import PNCrypt

/// A scheme name on the command line.
extension Scheme: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

struct Encrypt: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encrypt text to Base64, or a file with --binary.",
        discussion: """
        Text mode encrypts the input bytes exactly as given and prints the Base64 text and one newline. \
        --binary streams raw bytes into a file format: legacy-random-iv (16-byte IV, then ciphertext; also written \
        for --scheme legacy, as every SDK's files use a random IV) or acrh (PNED header, then ciphertext).

        Examples:
          pncrypt encrypt --key enigma --scheme legacy 'yay!'
          pncrypt encrypt --key-file key.txt --binary -i in.bin -o in.bin.enc
        """)

    @OptionGroup var keys: KeyOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var progress: ProgressOptions

    @Option(help: "legacy, legacy-random-iv, acrh (default, recommended) or legacy33.")
    var scheme: Scheme = .acrh

    @Option(help: ArgumentHelp("A fixed IV as 32 hex digits, for reproducible test vectors. Never for real data.",
                               valueName: "hex"))
    var iv: String?

    @Flag(help: "Stream raw bytes in a file format instead of printing Base64.")
    var binary = false

    @Flag(help: "With --binary: compress with gzip, then encrypt.")
    var gzip = false

    func validate() throws {
        _ = try CLI.parseIV(iv)
        if gzip && !binary { throw ValidationError("--gzip needs --binary (for messages: message encrypt --gzip)") }
        if binary && scheme == .legacy33 { throw ValidationError("legacy33 has no file format; use --scheme acrh") }
    }

    func run() throws {
        try CLI.run {
            let key = try keys.resolve()
            let iv = try CLI.parseIV(iv)
            if binary {
                let encryptor = try StreamEncryptor(key: key, scheme: scheme, iv: iv)
                let stages: [any ByteStreamStage] = gzip ? [try GzipCompressor(), encryptor] : [encryptor]
                try Streaming.run(input: input, output: output, stages: stages, holdUntilVerified: false,
                                  progress: progress)
            } else {
                let plaintext = try input.readAll()
                let text = try CryptoModule(key: key).encryptToBase64(plaintext, scheme: scheme, iv: iv)
                let out = try OutputFile(path: output.output, inputPath: input.input, durable: output.sync)
                try out.write(Array((text + "\n").utf8))
                try out.commit()
            }
        }
    }
}
