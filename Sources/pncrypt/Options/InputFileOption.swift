import ArgumentParser

/// `-i PATH`, shared by the input groups.
struct InputFileOption: ParsableArguments {
    @Option(name: [.customShort("i"), .customLong("input")], help: ArgumentHelp(
        "Read input from a file (- for standard input).", valueName: "path"), completion: .file())
    var input: String?
}
