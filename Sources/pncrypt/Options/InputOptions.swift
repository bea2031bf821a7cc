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
        if let text, input != nil { throw ValidationError(Self.bothGiven(text)) }
    }

    /// The refusal of TEXT beside `-i PATH`. TEXT that follows a `--name` argument may be the value of an option
    /// the command does not have (the parser then reads the value as TEXT): the refusal says so.
    static func bothGiven(_ text: String, arguments: [String] = CommandLine.arguments) -> String {
        let refusal = "give either TEXT or -i PATH, not both"
        guard let at = arguments.lastIndex(of: text), at > 1 else { return refusal }
        let before = arguments[at - 1]
        guard before.hasPrefix("--"), before.count > 2, !before.contains("=") else { return refusal }
        return refusal + ": '\(text)' was read as TEXT, after \(before); if it is that option's value, this command"
            + " has no option \(before) (--help lists its options)"
    }

    /// The input; TEXT that names an existing file and is not JSON or Base64 (a forgotten `-i`) is refused, exit 64
    /// (`refuseFileNameAsText`, the rule of every command that takes TEXT).
    func resolved() throws -> Input {
        try refuseFileNameAsText(text, orJSON: true, binaryHint: false)
        return Input(text: text, path: try file.path)
    }
}
