import ArgumentParser
import PNCrypt
import PNCryptPlatform
import SystemPackage

/// Input of `encrypt`, `decrypt` and `inspect`: the positional argument is TEXT, or with `--binary` a file path
/// (as `openssl enc -in` and `gzip FILE`); else `-i PATH`, else standard input.
struct DataInputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("""
        The input: text, or with --binary, a file path (- for standard input). Without it, -i PATH, else \
        standard input.
        """, valueName: "text-or-path"), completion: .file())
    var argument: String?

    @OptionGroup var file: InputFileOption

    func validate() throws {
        if argument != nil && file.input != nil {
            throw ValidationError("give the input once: as an argument or with -i PATH")
        }
    }

    /// The input: with `binary`, the argument is a path.
    func resolved(binary: Bool) throws -> Input {
        try Self.resolve(argument: argument, file: file, binary: binary)
    }

    /// The input of a positional `argument` and `-i` `file`: with `binary`, the argument is a path (its bytes).
    static func resolve(argument: String?, file: InputFileOption, binary: Bool) throws -> Input {
        guard binary, let argument else { return Input(text: binary ? nil : argument, path: try file.path) }
        return Input(text: nil, path: try RawArguments.positionalPaths([argument])[0])
    }
}

// Notes on standard error for a command line that probably does not mean what it says (the run still does what it
// says: a note never changes the output or the exit status).

extension DataInputOptions {
    /// Text mode with an argument that names an existing file (`pncrypt encrypt photo.jpg`): the name is
    /// encrypted as text, as asked, with a note that `-i` or `--binary` was probably meant.
    func noteIfTextNamesAFile(binary: Bool) {
        guard !binary, let argument, let file = regularFile(named: argument) else { return }
        CLI.note("'\(file.shown)' is also a file: its name was taken as the TEXT; for the file's contents give "
                 + "-i \(file.shown) (text) or --binary \(file.shown) (a file format)")
    }
}
