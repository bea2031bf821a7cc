import ArgumentParser
import PNCrypt

struct Encrypt: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    @OptionGroup var keys: KeyOptions
    @OptionGroup var input: DataInputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var writing: WriteSchemeOptions
    @OptionGroup var force: ForceOption
    @OptionGroup var progress: ProgressOptions

    @Flag(help: "Stream raw bytes in a file format instead of printing Base64.")
    var binary = false

    @Flag(help: "With --binary: compress with gzip, then encrypt.")
    var gzip = false

    func validate() throws {
        if gzip && !binary { throw ValidationError("--gzip needs --binary (for messages: message encrypt --gzip)") }
        if binary {
            try Scheme.requireFileFormat(writing.scheme)
            try force.check(output)
        }
    }

    func run() throws {
        let source = input.resolved(binary: binary)
        input.noteIfTextNamesAFile(binary: binary)
        let key = try keys.resolve(input: source, confirm: true)
        if binary {
            let encryptor = try StreamEncryptor(key: key, scheme: writing.scheme, iv: writing.iv)
            let stages: [any ByteStreamStage] = gzip ? [try Compressor(), encryptor] : [encryptor]
            try OutputFile.stream(source, through: stages, to: output, binary: force, progress: progress)
        } else {
            // Streamed, in constant memory: the Base64 text, then one newline.
            let encryptor = try TextStreamEncryptor(key: key, scheme: writing.scheme, iv: writing.iv)
            try OutputFile.stream(source, through: [encryptor, LineEnd()], to: output, progress: progress)
        }
    }
}

/// Passes a stream through and ends it with a newline (after the text of `encrypt`).
final class LineEnd: ByteStreamStage {
    func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        if input.count > 0 { try sink(input) }
    }

    func finish(_ sink: ByteSink) throws(PNCryptError) {
        try withUnsafeBytes(of: UInt8(ascii: "\n")) { (newline) throws(PNCryptError) in try sink(newline) }
    }
}
