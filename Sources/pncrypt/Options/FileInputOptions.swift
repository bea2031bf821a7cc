import ArgumentParser

/// Input of `gzip` and `gunzip`: a file path (as `gzip -c FILE`), else `-i PATH`, else standard input.
struct FileInputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The input file (- for standard input). Without it, -i PATH, else standard input.",
                                 valueName: "path"), completion: .file())
    var path: String?

    @OptionGroup var file: InputFileOption

    func validate() throws {
        if path != nil && file.input != nil { throw ValidationError("give the input file once: PATH or -i PATH") }
    }

    var resolved: Input { Input(text: nil, path: path ?? file.input) }
}
