import ArgumentParser

/// Input of the commands that read text (messages, history, diagnose): a TEXT argument, else `-i PATH`, else
/// standard input.
struct InputOptions: ParsableArguments {
    @Argument(help: "The input text. Without it, -i PATH, else standard input.")
    var text: String?

    @OptionGroup var file: InputFileOption

    /// `-i PATH`.
    var input: String? { file.input }

    func validate() throws {
        if text != nil && input != nil { throw ValidationError("give either TEXT or -i PATH, not both") }
    }

    var resolved: Input { Input(text: text, path: input) }
}
