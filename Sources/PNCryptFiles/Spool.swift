// Output held until it is verified, in an unlinked temporary file (InputFiles.swift makes it). It owns and closes
// its descriptor.

import PNCryptBase
import PNCryptCore
import PNCryptPlatform
import SystemPackage

/// A scratch file with no name (unlinked at once), for holding output until it is verified (output that cannot be
/// taken back, such as standard output, a device or a FIFO).
package final class Spool {
    /// The descriptor to write the held output to.
    package let fd: FileDescriptor

    /// A new spool in `TMPDIR`.
    package init() throws(FileError) {
        fd = try InputFiles.unlinkedTemporary()
    }

    deinit { try? fd.close() }

    /// Copies everything written so far to `output`.
    package func copy(to output: FileDescriptor) throws(FileError) {
        try InputFiles.rewind(fd, "the held output")
        try InputFiles.copy(from: fd, to: output, reading: "the held output", writing: "output")
    }
}
