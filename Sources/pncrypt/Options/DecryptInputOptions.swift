import ArgumentParser

/// Input of `decrypt`: as `DataInputOptions`, and several TEXT arguments, decrypted one per line.
struct DecryptInputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("""
        The input: text (several: one plaintext per line), or with --binary, a file path (- for standard input). \
        Without it, -i PATH, else standard input.
        """, valueName: "text-or-path"), completion: .file())
    var arguments: [String] = []

    @OptionGroup var file: InputFileOption

    func validate() throws {
        if !arguments.isEmpty && file.input != nil {
            throw ValidationError("give the input once: as an argument or with -i PATH")
        }
    }

    /// The input of one argument (or none): with `binary`, the argument is a path.
    func resolved(binary: Bool) throws -> Input {
        try DataInputOptions.resolve(argument: arguments.first, file: file, binary: binary)
    }
}
