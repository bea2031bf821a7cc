// The one error of the files layer, for input and output files alike: each shell maps its kind to an exit status
// (the CLI) or an error code (the C library) with one exhaustive switch.

/// Why an input file could not be opened or read, or an output file could not be opened or committed.
package struct FileError: Error, Sendable {
    /// What kind of failure, for the exit status or error code.
    package enum Kind: Sendable {
        /// The input file does not exist.
        case missing
        /// The input file cannot be opened: no permission, a folder on the way that is not one, a link loop.
        case cannotOpen
        /// The output cannot be created (or must not be replaced): a missing folder, a directory, a refused link.
        case cannotCreate
        /// The output names the input file.
        case sameAsInput
        /// The output is not a regular file (a device, a FIFO, a descriptor) where only a file is allowed.
        case notRegular
        /// Another I/O error: a read or write that fails, a rename, a full disk, a temporary file that cannot be
        /// made.
        case io
    }

    /// What kind of failure.
    package let kind: Kind
    /// One line saying what was wrong.
    package let message: String

    /// A failure of `kind`, said in one line.
    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The output leads to the input file, named in messages as `name` (`'in.txt'`).
    static func sameAsInput(_ name: String) -> FileError {
        FileError(.sameAsInput, "refusing to write the output over the input file \(name)")
    }
}
