// The one all-or-nothing output of the shells: the CLI's `-o` and the C library's `pncrypt_*_file` open, commit
// and abandon their output here, and nowhere else. Where the path leads and how a file appears whole are in
// OutputTarget.swift (over OutputPaths.swift, AtomicOutputFile.swift and ExtendedAttributes.swift); what a signal
// leaves behind is in SignalCleanup.swift.

import PNCryptCore

import PNCryptPlatform
import SystemPackage

/// Output to a path that appears only on `commit()`, for every shell.
///
/// A path naming a regular file (or nothing yet) is resolved once by `OutputTarget` (links followed under the
/// protected-symlinks rule) and written to a file with no name in the target's folder (`O_TMPFILE`, mode 0600;
/// where the file system has none, to `.<name>.pncrypt-<random>.tmp`, created exclusively, 0600). `commit()` gives
/// it the replaced file's owner, group, mode and extended attributes (POSIX ACLs), or `newMode` for a new file,
/// and links or renames it into place; `abandon()` (or deinit without a commit) removes it. A path leading to the
/// input file is refused. A path that is not a regular file (a device, a FIFO, one of the process's descriptors)
/// is opened and written directly when `streams` allows it (`canTakeBack` is then false: callers hold output that
/// is not yet verified), else refused.
///
/// With `cleanupOnSignal` (a program that installed `SignalCleanup`), a named temporary is removed by any signal
/// that ends the process, and the commit runs with those signals blocked. The environment variable
/// `PNCRYPT_TEST_NAMED_TEMPORARY=1` makes every output take the named temporary (the path of file systems without
/// `O_TMPFILE`), so that tests reach it. Not thread-safe; one owner.
package final class FileOutput {
    /// The descriptor to write to: the temporary file, a device or FIFO, or a duplicate of a process descriptor.
    package let fd: FileDescriptor
    /// Whether bytes written to `fd` can still be thrown away (a regular file: yes; a device, a FIFO, a process
    /// descriptor: no).
    package let canTakeBack: Bool
    private let path: FilePath
    private let file: AtomicOutputFile?
    /// A descriptor this object opened and must close (a device, a FIFO, a duplicate), else -1.
    private var ownedDescriptor: Int32
    private let cleanupOnSignal: Bool
    private var done = false

    /// The mode of a new output file, for every shell (the CLI's `-o`, the C file functions): `0600 & ~umask`.
    /// What pncrypt writes is a plaintext or a secret's ciphertext: only its owner reads it until the owner says
    /// otherwise (a file that exists keeps its own mode, owner and ACLs).
    package static var newFileMode: mode_t { 0o600 & ~currentUmask }

    /// The process's file-creation mask.
    private static let currentUmask: mode_t = {
        let mask = umask(0o077)
        umask(mask)
        return mask
    }()

    /// Opens `path` for output. `input` is the input file's `stat` and its name in messages (`'in.txt'`; nil
    /// without an input file): a path that leads to the same file is refused (`sameAsInput`, naming the input).
    /// Without `streams`, a path that is not a regular file is refused (`notRegular`) without being opened
    /// (opening a FIFO waits for a reader).
    package convenience init(_ path: FilePath, input: (info: stat, name: String)?, streams: Bool,
                             cleanupOnSignal: Bool) throws(FileError) {
        try self.init(path, inputs: input.map { [$0] } ?? [], streams: streams, cleanupOnSignal: cleanupOnSignal)
    }

    /// `init(_:input:streams:cleanupOnSignal:)` for a run that reads several input files (`conformance --junit`):
    /// a path that leads to any of them is refused.
    package init(_ path: FilePath, inputs: [(info: stat, name: String)], streams: Bool, cleanupOnSignal: Bool)
        throws(FileError) {
        (self.path, self.cleanupOnSignal) = (path, cleanupOnSignal)
        // Here for what `OutputTarget.open` does not compare (a device, a FIFO or a descriptor that is the input);
        // it compares a regular file's resolved location again, without a race through a swapped link.
        var output = stat()
        if !inputs.isEmpty && path.withPlatformString({ stat($0, &output) }) == 0 {
            for input in inputs where output.st_dev == input.info.st_dev && output.st_ino == input.info.st_ino {
                throw .sameAsInput(input.name)
            }
        }
        let named = getenv("PNCRYPT_TEST_NAMED_TEMPORARY").map { String(cString: $0) == "1" } ?? false
        let target = try OutputTarget.open(path, inputs: inputs, namedTemporary: named, openStreams: streams)
        switch target {
        case .file(let output):
            (file, ownedDescriptor, canTakeBack) = (output, -1, true)
            if cleanupOnSignal { SignalCleanup.register(output) }
        case .descriptor(let number) where streams:
            let copy = fcntl(number, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else {
                throw FileError(.cannotCreate, "cannot open output '\(path.shown)': \(OutputPaths.reason())")
            }
            (file, ownedDescriptor, canTakeBack) = (nil, copy, false)
        case .stream(let opened) where streams:
            (file, ownedDescriptor, canTakeBack) = (nil, opened, false)
        case .descriptor, .stream:
            if case .stream(let opened) = target, opened >= 0 { close(opened) }
            throw FileError(.notRegular, "the output '\(path.shown)' is not a regular file (a device, a FIFO or a "
                                  + "descriptor)")
        }
        fd = FileDescriptor(rawValue: file?.fd ?? ownedDescriptor)
    }

    deinit { if !done { abandon() } }

    /// Other temporaries in the output's folder (`<folder>/.<name>.pncrypt-<random>.tmp`, as paths): left by a run
    /// that was killed where the file system has no `O_TMPFILE`, or belonging to a run still going. They may hold
    /// plaintext. With each, its owner (nil when it cannot be read): only a file the caller owns can be its own
    /// run's; a name is no proof, anyone who can write to the folder can choose it.
    package var otherTemporaries: [(path: FilePath, owner: uid_t?)] {
        guard let file else { return [] }
        return file.otherTemporaries().map { (file.directoryPath.appending($0.name), $0.owner) }
    }

    /// Makes the output final: gives a file its access (the replaced file's, else `newMode`) and puts it in place;
    /// closes a device or FIFO. With `durable`, flushes the data (and the folder) to disk first. Any failure
    /// removes the temporary file and leaves the path as it was.
    package func commit(newMode: mode_t, durable: Bool) throws(FileError) {
        done = true
        guard let file else {
            let fd = ownedDescriptor
            ownedDescriptor = -1
            if durable && fsync(fd) != 0 && errno != EINVAL && errno != EROFS {
                let reason = OutputPaths.reason()
                close(fd)
                throw FileError(.io, "cannot write '\(path.shown)': \(reason)")
            }
            guard close(fd) == 0 || errno == EINTR else {
                throw FileError(.io, "cannot write '\(path.shown)': \(OutputPaths.reason())")
            }
            return
        }
        guard cleanupOnSignal else { return try file.commit(newMode: newMode, durable: durable) }
        // The signals that remove the temporary stay blocked while it is put in place and forgotten: a signal in
        // between would remove a name that no longer belongs to this run.
        try SignalCleanup.whileBlocked { () throws(FileError) in
            defer { SignalCleanup.clear() }
            try file.commit(newMode: newMode, durable: durable)
        }
    }

    /// Throws the output away; the path is left as it was.
    package func abandon() {
        done = true
        if ownedDescriptor >= 0 {
            close(ownedDescriptor)
            ownedDescriptor = -1
        }
        guard let file else { return }
        guard cleanupOnSignal else { return file.abandon() }
        SignalCleanup.whileBlocked {
            file.abandon()
            SignalCleanup.clear()
        }
    }
}
