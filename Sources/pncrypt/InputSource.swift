import ArgumentParser
import PNCryptFiles

extension InputSource {
    /// The input of a command that reads it more than once (the files layer's `InputSource`): a regular file, or
    /// else standard input (or a FIFO) copied first into an unlinked 0600 temporary file.
    convenience init(_ input: Input) throws {
        try self.init(path: input.filePath, name: input.describe)
    }
}

extension CLIFailure {
    /// An input that could not be opened or read, or an output that could not be opened or put in place: 66 when
    /// the input is missing or cannot be opened, 73 when the output cannot be created, 64 over the input file,
    /// else 74.
    init(_ error: FileError) {
        let code: ExitCode = switch error.kind {
        case .missing, .cannotOpen: .noInput
        case .cannotCreate, .notRegular: .cannotCreate
        case .sameAsInput: .usage
        case .io: .ioError
        }
        self.init(code, error.message)
    }
}
