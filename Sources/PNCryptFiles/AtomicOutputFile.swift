// A regular output file that appears only when the whole output is written (behind `OutputTarget`,
// OutputTarget.swift): a file with no name (`O_TMPFILE`, mode 0600) in the target's folder, or where the file system
// has none a named 0600 temporary, given the replaced file's owner, group, mode and extended attributes at commit
// (or refused with the path unchanged) and linked or renamed into place.

import PNCryptBase
import PNCryptCore

import PNCryptPlatform
import SystemPackage

/// A regular output file that appears only on `commit()`: written to a file with no name in the target's folder
/// (`O_TMPFILE`), or where the file system has none, to a named 0600 temporary beside it, then linked or renamed
/// into place. Not thread-safe; one owner.
final class AtomicOutputFile {
    /// The descriptor to write the output to.
    let fd: Int32
    /// The target's folder (an `O_PATH` descriptor), for `unlinkat` of `temporaryName`.
    let directory: Int32
    /// The folder as a path, for messages.
    let directoryPath: FilePath
    /// The temporary's name in `directory` while it has one (the named fallback), else nil: the one name a
    /// signal handler must remove.
    private(set) var temporaryName: FilePath.Component?
    /// The name used to link a nameless file in before renaming it over an existing one.
    private let linkName: FilePath.Component
    private let name: FilePath.Component
    private let reportedAs: FilePath
    private let existing: stat?
    private var existingFD: Int32
    private var open = true

    init(_ location: OutputLocation, reportedAs path: FilePath, namedTemporary: Bool) throws(FileError) {
        (directory, directoryPath, name, reportedAs) = (location.directory, location.directoryPath, location.name,
                                                        path)
        (existing, existingFD) = (location.existing, location.existingFD)
        func fail(_ message: String) -> FileError {
            location.close()
            return FileError(.cannotCreate, "cannot create output file '\(path.shown)': \(message)")
        }
        // From here every failure closes the folder and the existing file (no deinit runs for a failed init).
        if let existing {
            // Never replace a file the caller could not have written to.
            if location.name.withPlatformString({
                faccessat(location.directory, $0, W_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW)
            }) != 0 {
                let text = OutputPaths.reason()
                location.close()
                throw FileError(.cannotCreate, "refusing to replace '\(path.shown)': \(text)")
            }
            if let problem = Self.ownershipProblem(existing) {
                location.close()
                throw FileError(.cannotCreate, "refusing to replace '\(path.shown)': \(problem)")
            }
        }
        // `.<name>.pncrypt-<random>.tmp`, the name's bytes as they are.
        let prefix = Array(".".utf8) + (location.name.bytes.count > 200 ? [] : location.name.bytes)
            + Array(".pncrypt-".utf8)
        func temporary() -> FilePath.Component {
            OutputPaths.component(prefix + Array((Self.randomSuffix() + ".tmp").utf8))!
        }
        linkName = temporary()
        if !namedTemporary {
            let nameless = openat(location.directory, ".", OutputPaths.O_TMPFILE | O_WRONLY | O_CLOEXEC, 0o600)
            if nameless >= 0 {
                (fd, temporaryName) = (nameless, nil)
                return
            }
            // EOPNOTSUPP (the file system has no O_TMPFILE), EISDIR or EINVAL (the kernel has none): fall back.
            guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else { throw fail(OutputPaths.reason()) }
        }
        for attempt in 0..<100 {
            let candidate = attempt == 0 ? linkName : temporary()
            // A signal's interruption is retried (`retryingInterrupted`); a name taken (EEXIST) tries another.
            do throws(Errno) {
                let named = try retryingInterrupted {
                    candidate.withPlatformString {
                        openat(location.directory, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                    }
                }
                (fd, temporaryName) = (named, candidate)
                return
            } catch where error == .fileExists {
                continue
            } catch {
                throw fail(error.description)
            }
        }
        throw fail("no free temporary name")
    }

    deinit {
        if open { abandon() }
        release()
        close(directory)
    }

    /// Whether the caller could give a new file `existing`'s owner and group; else why not.
    static func ownershipProblem(_ existing: stat) -> String? {
        let uid = geteuid()
        guard uid != 0 else { return nil }
        if existing.st_uid != uid {
            return "it is owned by uid \(existing.st_uid), and a new file could not keep that owner"
        }
        if existing.st_gid != getegid() {
            let count = getgroups(0, nil)
            var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
            let got = getgroups(count, &groups)
            if got < 0 || !groups.prefix(Int(got)).contains(existing.st_gid) {
                return "its group is gid \(existing.st_gid), and a new file could not keep that group"
            }
        }
        return nil
    }

    static func randomSuffix() -> String {
        // Base64's letters and digits: no `+` or `/` in a file name.
        let alphabet = Base64.alphabet.prefix(62)
        var generator = SystemRandomNumberGenerator()
        return String(decoding: (0..<12).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
    }

    /// Other temporaries in the folder (`.<name>.pncrypt-<random>.tmp`): left by a run that was killed where the
    /// file system has no `O_TMPFILE`, or belonging to a run still going.
    func otherTemporaries() -> [(name: FilePath.Component, owner: uid_t?)] {
        OutputPaths.temporaries(in: directory).filter { $0.name != temporaryName }
    }

    /// Gives the file its final owner, group, extended attributes and mode (the replaced file's, or for a new file
    /// `newMode`), flushes it (with `durable`) and puts it in place. Any failure removes it and leaves the path as
    /// it was. Signals that remove `temporaryName` must be blocked by the caller during the call.
    func commit(newMode: mode_t, durable: Bool) throws(FileError) {
        do {
            try finish(newMode: newMode, durable: durable)
            try place(durable: durable)
        } catch {
            abandon()
            throw error
        }
        release()
    }

    private func finish(newMode: mode_t, durable: Bool) throws(FileError) {
        func fail(_ what: String) -> FileError {
            FileError(.io, "cannot \(what) of '\(reportedAs.shown)': \(OutputPaths.reason())")
        }
        if let existing {
            // Owner first (it clears set-user-ID bits), then the attributes (an ACL sets the group bits), then mode.
            guard fchown(fd, existing.st_uid, existing.st_gid) == 0 else { throw fail("keep the owner and group") }
            try ExtendedAttributes.copy(from: existingFD, to: fd, reportedAs: reportedAs)
            guard fchmod(fd, existing.st_mode & 0o7777) == 0 else { throw fail("keep the permissions") }
        } else {
            guard fchmod(fd, newMode) == 0 else { throw fail("set the permissions") }
        }
        if durable && fsync(fd) != 0 && errno != EINVAL { throw fail("write the contents") }
    }

    private func place(durable: Bool) throws(FileError) {
        func fail(_ what: String) -> FileError {
            FileError(.io, "cannot move output into place at '\(reportedAs.shown)': \(what)")
        }
        if let temporaryName {
            // Linux closes the descriptor even when close reports an error: never close it twice.
            let closed = close(fd)
            open = false
            guard closed == 0 else {
                throw FileError(.io, "cannot write '\(reportedAs.shown)': \(OutputPaths.reason())")
            }
            guard rename(temporaryName, to: name) else { throw fail(OutputPaths.reason()) }
            self.temporaryName = nil
        } else {
            if existing == nil && link(as: name) { return try flushFolder(durable) }
            guard errno == EEXIST || existing != nil else { throw fail(OutputPaths.reason()) }
            guard link(as: linkName) else { throw fail(OutputPaths.reason()) }
            temporaryName = linkName
            guard rename(linkName, to: name) else { throw fail(OutputPaths.reason()) }
            temporaryName = nil
        }
        try flushFolder(durable)
    }

    /// Renames `source` to `target` in the folder (replacing it).
    private func rename(_ source: FilePath.Component, to target: FilePath.Component) -> Bool {
        source.withPlatformString { from in
            target.withPlatformString { to in renameat(directory, from, directory, to) == 0 }
        }
    }

    /// Links the nameless file in as `target` (without replacing anything).
    private func link(as target: FilePath.Component) -> Bool {
        target.withPlatformString { target in
            if linkat(fd, "", directory, target, OutputPaths.AT_EMPTY_PATH) == 0 { return true }
            // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH before Linux 6.10; /proc/self/fd works for everyone.
            guard errno == ENOENT || errno == EPERM || errno == EINVAL else { return false }
            return linkat(AT_FDCWD, "/proc/self/fd/\(fd)", directory, target, AT_SYMLINK_FOLLOW) == 0
        }
    }

    private func flushFolder(_ durable: Bool) throws(FileError) {
        guard durable else { return }
        let folder = openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        defer { close(folder) }
        guard fsync(folder) == 0 || errno == EINVAL else {
            throw FileError(.io, "cannot flush the directory of '\(reportedAs.shown)': \(OutputPaths.reason())")
        }
    }

    /// Throws the output away: the temporary is removed, the path left as it was.
    func abandon() {
        if let temporaryName { _ = temporaryName.withPlatformString { unlinkat(directory, $0, 0) } }
        temporaryName = nil
        if open { close(fd) }
        open = false
        release()
    }

    private func release() {
        if open { close(fd) }
        open = false
        if existingFD >= 0 { close(existingFD) }
        existingFD = -1
    }
}
