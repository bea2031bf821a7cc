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

    /// The input; a path is the bytes the command line gave (`RawArguments`).
    var resolved: Input {
        get throws {
            Input(text: nil, path: try path.map { try RawArguments.positionalPaths([$0])[0] } ?? file.path)
        }
    }
}
