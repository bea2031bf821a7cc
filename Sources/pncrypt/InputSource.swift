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
    /// An input that could not be opened or read: 66 when it is missing or cannot be opened, else 74.
    init(_ error: InputFileError) {
        self.init(error.kind == .io ? .ioError : .noInput, error.message)
    }

    /// An output that could not be opened or put in place: 73 when it cannot be created, 64 over the input file,
    /// else 74.
    init(_ error: OutputFileError) {
        let code: ExitCode = switch error.kind {
        case .cannotCreate, .notRegular: .cannotCreate
        case .sameAsInput: .usage
        case .io: .ioError
        }
        self.init(code, error.message)
    }
}
