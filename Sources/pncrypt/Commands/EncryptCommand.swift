import ArgumentParser
import PNCrypt

struct EncryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Encrypt text to Base64, or a file with --binary.",
        discussion: """
        Text mode encrypts the input bytes exactly as given and prints the Base64 text and one newline, \
        streamed in constant memory whatever the input's size. \
        --binary streams raw bytes (the file named, -i PATH or standard input) into a file format: \
        legacy-random-iv (16-byte IV, then ciphertext), legacy (the ciphertext alone, under the fixed IV) or \
        acrh (PNED header, then ciphertext). Binary output is not written to a terminal without -f. With no \
        key given, the key is asked for twice on the terminal.

        Examples:
          pncrypt encrypt --key enigma --scheme legacy 'yay!'
          pncrypt encrypt --key-file key.txt --binary photo.jpg -o photo.enc
        """)

    @OptionGroup var options: DataOptions<DataInputOptions, WriteSchemeOptions>

    @Flag(help: "Stream raw bytes in a file format instead of printing Base64.")
    var binary = false

    @Flag(help: "With --binary: compress with gzip, then encrypt.")
    var gzip = false

    func validate() throws {
        if gzip && !binary { throw ValidationError("--gzip needs --binary (for messages: message encrypt --gzip)") }
        if binary {
            try Scheme.requireFileFormat(options.schemes.scheme)
            try options.force.check(options.output)
        }
    }

    func run() throws {
        let source = try options.input.resolved(binary: binary)
        options.input.noteIfTextNamesAFile(binary: binary)
        let key = try options.keys.resolve(input: source, confirm: true)
        if binary {
            let encryptor = try StreamEncryptor(key: key, scheme: options.schemes.scheme, iv: options.schemes.iv)
            let stages: [any ByteStreamStage] = gzip ? [try Compressor(), encryptor] : [encryptor]
            try OutputFile.stream(source, through: stages, to: options.output, binary: options.force,
                                  progress: options.progress)
        } else {
            // Streamed, in constant memory: the Base64 text, then one newline.
            let encryptor = try TextStreamEncryptor(key: key, scheme: options.schemes.scheme, iv: options.schemes.iv)
            try OutputFile.stream(source, through: [encryptor, LineEnd()], to: options.output,
                                  progress: options.progress)
        }
    }
}
