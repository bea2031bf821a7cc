import ArgumentParser
import SystemPackage

/// `-i PATH`, shared by the input groups.
struct InputFileOption: ParsableArguments {
    @Option(name: [.customShort("i"), .customLong("input")], help: ArgumentHelp(
        "Read input from a file (- for standard input).", valueName: "path"), completion: .file())
    var input: String?

    /// The bytes `-i` was given (`RawArguments`), nil without `-i`; `-` is standard input.
    var path: FilePath? {
        get throws { try RawArguments.path(input, long: "--input", short: "-i") }
    }
}
