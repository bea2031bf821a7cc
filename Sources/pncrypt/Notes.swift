import PNCrypt
import PNCryptPlatform

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
