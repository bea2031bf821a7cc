import ArgumentParser

/// Input of the commands that read text (messages, history, diagnose): a TEXT argument, else `-i PATH`, else
/// standard input.
struct InputOptions: ParsableArguments {
    @Argument(help: """
        The input text. Without it, -i PATH, else standard input. Text that names an existing file and is not \
        JSON or Base64 is refused (exit 64): give the file with -i PATH.
        """)
    var text: String?

    @OptionGroup var file: InputFileOption

    /// `-i PATH`.
    var input: String? { file.input }

    func validate() throws {
        if text != nil && input != nil { throw ValidationError("give either TEXT or -i PATH, not both") }
    }

    /// The input; TEXT that names an existing file and is not JSON or Base64 (a forgotten `-i`) is refused, exit 64
    /// (`refuseFileNameAsText`, the rule of every command that takes TEXT).
    func resolved() throws -> Input {
        try refuseFileNameAsText(text, orJSON: true, binaryHint: false)
        return Input(text: text, path: try file.path)
    }
}
