import ArgumentParser
import PNCrypt

struct Encrypt: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encrypt text to Base64, or a file with --binary.",
        discussion: """
        Text mode encrypts the input bytes exactly as given and prints the Base64 text and one newline. \
        --binary streams raw bytes into a file format: legacy-random-iv (16-byte IV, then ciphertext), legacy \
        (the ciphertext alone, under the fixed IV) or acrh (PNED header, then ciphertext).

        Examples:
          pncrypt encrypt --key enigma --scheme legacy 'yay!'
          pncrypt encrypt --key-file key.txt --binary -i in.bin -o in.bin.enc
        """)

    @OptionGroup var keys: KeyOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var writing: WriteSchemeOptions

    @Flag(help: "Stream raw bytes in a file format instead of printing Base64.")
    var binary = false

    @Flag(help: "With --binary: compress with gzip, then encrypt.")
    var gzip = false

    func validate() throws {
        if gzip && !binary { throw ValidationError("--gzip needs --binary (for messages: message encrypt --gzip)") }
        if binary { try Scheme.requireFileFormat(writing.scheme) }
    }

    func run() throws {
        let key = try keys.resolve()
        if binary {
            let encryptor = try StreamEncryptor(key: key, scheme: writing.scheme, iv: writing.iv)
            let stages: [any ByteStreamStage] = gzip ? [try GzipCompressor(), encryptor] : [encryptor]
            try OutputFile.stream(input, through: stages, to: output)
        } else {
            let text = try CryptoModule(key: key).encryptToBase64(try input.readAll(), scheme: writing.scheme,
                                                                  iv: writing.iv)
            try OutputFile.write(Array((text + "\n").utf8), to: output, inputPath: input.input)
        }
    }
}
