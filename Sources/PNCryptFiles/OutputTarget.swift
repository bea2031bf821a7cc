// Behind `FileOutput` (internal to the files layer, so no shell can go around it): where an output path leads, and
// a file that appears only when the whole output is written. `OutputTarget.open` is the way in; the path is walked by
// `OutputPaths` (OutputPaths.swift), the file is an `AtomicOutputFile` (AtomicOutputFile.swift), its extended
// attributes are copied by `ExtendedAttributes` (ExtendedAttributes.swift). Every promise about output files lives
// in these files, once:
//
// - Links are resolved once, component by component, on descriptors (`O_PATH | O_NOFOLLOW`); everything after
//   works on the folder that was opened (`*at` calls), so nothing can swap a path between the check and the use.
// - The protected-symlinks rule is applied whatever `fs.protected_symlinks` says: a link in a sticky
//   world-writable folder is followed only when the caller or the folder's owner owns it.
// - The output is written to a file with no name (`O_TMPFILE`, mode 0600) in the target's folder and linked in
//   only at commit, so a killed process (SIGKILL, a crash) leaves nothing; where the file system has no
//   `O_TMPFILE`, to `.<name>.pncrypt-<random>.tmp` (created exclusively, 0600), which the caller removes on a signal.
// - Replacing a file keeps its owner, group, mode and extended attributes (POSIX ACLs included), or fails with
//   the path unchanged; a file the caller could not write to is never replaced.

import PNCryptPlatform
import SystemPackage

/// What an output path leads to.
enum OutputTarget {
    /// One of this process's descriptors (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`): not opened.
    case descriptor(Int32)
    /// Something that is not a regular file (a device, a FIFO), opened for writing (the caller closes it), or
    /// -1 when `open` was told not to open such things.
    case stream(Int32)
    /// A regular file to create or replace, all or nothing.
    case file(AtomicOutputFile)

    /// Resolves `path` and opens what it leads to. `inputs` are the input files' `stat` and names: a path leading to
    /// one of them is refused. With `namedTemporary`, the output is written under a temporary name even where the file
    /// system offers `O_TMPFILE` (to test that path). Without `openStreams`, a device or FIFO is not opened (opening a
    /// FIFO waits for a reader): `.stream(-1)`.
    static func open(_ path: FilePath, inputs: [(info: stat, name: String)] = [], namedTemporary: Bool = false,
                             openStreams: Bool = true) throws(FileError) -> OutputTarget {
        if let number = OutputPaths.descriptorNumber(path) { return .descriptor(number) }
        let resolved = try OutputPaths.resolve(path, openStreams: openStreams)
        switch resolved {
        case .descriptor(let number):
            return .descriptor(number)
        case .stream(let fd):
            return .stream(fd)
        case .file(let location):
            if let existing = location.existing, let input = inputs.first(where: {
                $0.info.st_dev == existing.st_dev && $0.info.st_ino == existing.st_ino
            }) {
                location.close()
                throw .sameAsInput(input.name)
            }
            return .file(try AtomicOutputFile(location, reportedAs: path, namedTemporary: namedTemporary))
        }
    }
}
