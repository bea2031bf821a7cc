import ArgumentParser
import PNCryptFiles

extension InputSource {
    /// The input of a command that reads it more than once (the files layer's `InputSource`): a regular file, or
    /// else standard input (or a FIFO) copied first into an unlinked 0600 temporary file.
    convenience init(_ input: Input) throws {
        try self.init(path: input.filePath, name: input.describe)
    }
}
