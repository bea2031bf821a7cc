// Behind `FileOutput` (internal to the files layer, so no shell can go around it): where an output path leads, and
// a file that appears only when the whole output is written. Every promise about output files lives here, once:
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

import PNCryptBase
import PNCryptCore

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

/// The folder (opened) and name a regular output file resolved to, with the file there now, if any.
struct OutputLocation {
    /// The folder, opened `O_PATH | O_DIRECTORY`.
    let directory: Int32
    /// The folder as a path, for messages (as the user named it, links followed).
    let directoryPath: FilePath
    /// The file's name in the folder.
    let name: FilePath.Component
    /// The existing file, opened `O_PATH | O_NOFOLLOW`, else -1.
    let existingFD: Int32
    /// The existing file's `stat`, nil for a new file.
    let existing: stat?

    func close() {
        if existingFD >= 0 { _ = PNCryptPlatform.close(existingFD) }
        _ = PNCryptPlatform.close(directory)
    }
}

enum OutputPaths {
    enum Resolved {
        case descriptor(Int32)
        case stream(Int32)
        case file(OutputLocation)
    }

    /// `open(2)` flags glibc declares only with `_GNU_SOURCE` (the same values on x86-64 and arm64).
    static let O_PATH: Int32 = 0o10000000
    static let O_TMPFILE: Int32 = 0o20000000 | O_DIRECTORY
    static let AT_EMPTY_PATH: Int32 = 0x1000

    /// The descriptor a path names without naming a file: `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
    /// `/proc/self/fd/N`, `/proc/thread-self/fd/N` or `/proc/<this pid>/fd/N`.
    static func descriptorNumber(_ path: FilePath) -> Int32? {
        // Decoded only to compare with ASCII names: a byte that is not UTF-8 becomes U+FFFD, which none holds.
        let path = String(decoding: path.bytes, as: UTF8.self)
        switch path {
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default: break
        }
        for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/\(getpid())/fd/", "/proc/thread-self/fd/"]
        where path.hasPrefix(prefix) {
            return Int32(path.dropFirst(prefix.count))
        }
        return nil
    }

    static func reason() -> String { String(cString: strerror(errno)) }

    /// Walks `path` one component at a time on `O_PATH` descriptors, following symbolic links (at most 40, as the
    /// kernel does) under the protected-symlinks rule, and opens what the last component names. Every name is the
    /// path's bytes, exactly (`FilePath`); a path ending in `/` ends in `.` (`FilePath(bytes:)`): a folder.
    static func resolve(_ path: FilePath, openStreams: Bool) throws(FileError) -> Resolved {
        func fail(_ message: String) -> FileError {
            FileError(.cannotCreate, "cannot create output file '\(path.shown)': \(message)")
        }
        guard !path.isEmpty else { throw fail("the path is empty") }
        var directory = PNCryptPlatform.open(path.isAbsolute ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw fail(reason()) }
        var directoryPath: FilePath = path.isAbsolute ? "/" : ""
        var pending = Array(path.components.reversed())
        var links = 0
        var keep = false
        defer { if !keep { close(directory) } }
        func enter(_ fd: Int32, _ shown: FilePath) {
            close(directory)
            directory = fd
            directoryPath = shown
        }
        while let component = pending.popLast() {
            let last = pending.isEmpty
            if component.kind != .regular {
                if last { throw fail("it names a directory") }
                if component.kind == .currentDirectory { continue }
                let parent = openat(directory, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)
                guard parent >= 0 else { throw fail(reason()) }
                enter(parent, directoryPath.appending(component))
                continue
            }
            let fd = component.withPlatformString { openat(directory, $0, O_PATH | O_NOFOLLOW | O_CLOEXEC) }
            guard fd >= 0 else {
                guard errno == ENOENT && last else { throw fail(reason()) }
                keep = true
                return .file(OutputLocation(directory: directory, directoryPath: directoryPath, name: component,
                                            existingFD: -1, existing: nil))
            }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let text = reason()
                close(fd)
                throw fail(text)
            }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                defer { close(fd) }
                links += 1
                if links > 40 { throw fail("too many levels of symbolic links") }
                var folder = stat()
                guard fstat(directory, &folder) == 0 else { throw fail(reason()) }
                let sticky = folder.st_mode & S_ISVTX != 0 && folder.st_mode & 0o002 != 0
                if sticky && info.st_uid != geteuid() && info.st_uid != folder.st_uid {
                    throw FileError(.cannotCreate, """
                        refusing to follow the symbolic link '\(directoryPath.appending(component).shown)' (owned \
                        by uid \(info.st_uid) in the sticky world-writable folder \
                        '\(directoryPath.isEmpty ? "." : directoryPath.shown)', which neither you nor the folder's \
                        owner own)
                        """)
                }
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let count = readlinkat(fd, "", &buffer, buffer.count - 1)
                guard count > 0 else { throw fail(count == 0 ? "a symbolic link is empty" : reason()) }
                let destination = FilePath(bytes: buffer[0..<count].map { UInt8(bitPattern: $0) })
                if destination.isAbsolute {
                    var rest = destination
                    rest.append(pending.reversed())
                    if let number = descriptorNumber(rest) { return .descriptor(number) }
                    let root = PNCryptPlatform.open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)
                    guard root >= 0 else { throw fail(reason()) }
                    enter(root, "/")
                }
                pending += destination.components.reversed()
            case S_IFDIR:
                if last {
                    close(fd)
                    throw fail("it is a directory")
                }
                enter(fd, directoryPath.appending(component))
            case S_IFREG:
                guard last else {
                    close(fd)
                    throw fail(String(cString: strerror(ENOTDIR)))
                }
                keep = true
                return .file(OutputLocation(directory: directory, directoryPath: directoryPath, name: component,
                                            existingFD: fd, existing: info))
            default:
                close(fd)
                guard last else { throw fail(String(cString: strerror(ENOTDIR))) }
                guard openStreams else { return .stream(-1) }
                do throws(SystemError) {
                    return .stream(try SystemIO.retrying {
                        component.withPlatformString {
                            openat(directory, $0, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC)
                        }
                    })
                } catch {
                    throw fail(error.description)
                }
            }
        }
        throw fail("it names a directory")
    }

    /// The names in a folder that look like output temporaries (`.<name>.pncrypt-<random>.tmp`).
    static func temporaries(in directory: Int32) -> [(name: FilePath.Component, owner: uid_t?)] {
        let fd = openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        guard let stream = fdopendir(fd) else {
            close(fd)
            return []
        }
        defer { closedir(stream) }
        var found: [(name: FilePath.Component, owner: uid_t?)] = []
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard bytes.first == UInt8(ascii: "."), bytes.count > 4, bytes.suffix(4).elementsEqual(".tmp".utf8),
                  bytes.firstRange(of: Array(".pncrypt-".utf8)) != nil, let name = component(bytes) else { continue }
            var info = stat()
            let owner = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) {
                    fstatat(dirfd(stream), $0, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info.st_uid : nil
                }
            }
            found.append((name, owner))
        }
        return found.sorted { $0.name.bytes.lexicographicallyPrecedes($1.name.bytes) }
    }

    /// The file name of exactly `bytes` (no `/`, no NUL), nil for an empty one.
    static func component(_ bytes: [UInt8]) -> FilePath.Component? {
        FilePath.Component(platformString: bytes.map { CChar(bitPattern: $0) } + [0])
    }
}

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
            // EINTR is retried by SystemIO (the one EINTR loop); a name taken (EEXIST) tries another.
            do throws(SystemError) {
                let named = try SystemIO.retrying {
                    candidate.withPlatformString {
                        openat(location.directory, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                    }
                }
                (fd, temporaryName) = (named, candidate)
                return
            } catch where error.code == EEXIST {
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

/// Copies extended attributes (POSIX ACLs are `system.posix_acl_access`) from one file to another, so that the
/// copy grants exactly the access the original did. The xattr calls are looked up at run time: Swift's Glibc
/// module does not declare `sys/xattr.h`.
enum ExtendedAttributes {
    private typealias List = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int
    private typealias Get = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    private typealias Set = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    private typealias Remove = @convention(c) (Int32, UnsafePointer<CChar>) -> Int32
    private typealias PathList = @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<CChar>?, Int) -> Int
    private typealias PathGet = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?,
                                                Int) -> Int

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
    }

    private static let flist = symbol("flistxattr", as: List.self)
    private static let fget = symbol("fgetxattr", as: Get.self)
    private static let fset = symbol("fsetxattr", as: Set.self)
    private static let fremove = symbol("fremovexattr", as: Remove.self)
    private static let plist = symbol("listxattr", as: PathList.self)
    private static let pget = symbol("getxattr", as: PathGet.self)

    /// A file whose attributes are read: an open descriptor, or a path (`/proc/self/fd/N` of an `O_PATH` one).
    private enum Source {
        case descriptor(Int32)
        case path(String)

        func list(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int {
            switch self {
            case .descriptor(let fd): flist.map { $0(fd, buffer, size) } ?? -1
            case .path(let path): plist.map { $0(path, buffer, size) } ?? -1
            }
        }

        func get(_ name: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int {
            switch self {
            case .descriptor(let fd): fget.map { $0(fd, name, buffer, size) } ?? -1
            case .path(let path): pget.map { $0(path, name, buffer, size) } ?? -1
            }
        }
    }

    /// Every attribute name of `source` (none where the file system has no attributes).
    private static func names(_ source: Source) -> [String]? {
        while true {
            let size = source.list(nil, 0)
            if size < 0 { return errno == ENOTSUP ? [] : nil }
            if size == 0 { return [] }
            var buffer = [CChar](repeating: 0, count: size)
            let got = source.list(&buffer, size)
            if got < 0 && errno == ERANGE { continue }
            if got < 0 { return nil }
            return buffer[0..<got].split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) },
                                                                    as: UTF8.self) }
        }
    }

    /// The value of attribute `name`, nil when it has none.
    private static func value(_ source: Source, _ name: String) -> [UInt8]? {
        while true {
            let size = source.get(name, nil, 0)
            if size < 0 { return nil }
            var buffer = [UInt8](repeating: 0, count: size)
            let got = buffer.withUnsafeMutableBytes { source.get(name, $0.baseAddress, size) }
            if got < 0 && errno == ERANGE { continue }
            if got < 0 { return nil }
            return Array(buffer[0..<got])
        }
    }

    /// Makes the attributes of `target` those of `sourceFD` (an `O_PATH` descriptor): sets each one the source
    /// has, removes each one it lacks. Any attribute that cannot be read or kept fails the copy.
    static func copy(from sourceFD: Int32, to target: Int32, reportedAs path: FilePath) throws(FileError) {
        func fail(_ what: String) -> FileError {
            let reason = OutputPaths.reason()
            return FileError(.cannotCreate, "refusing to replace '\(path.shown)': cannot keep \(what): \(reason)")
        }
        // Reading attributes needs a readable descriptor: the O_PATH one is reopened through /proc, or for a file
        // the caller cannot read, read by its /proc path.
        let reopened = PNCryptPlatform.open("/proc/self/fd/\(sourceFD)", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        defer {
            if reopened >= 0 { close(reopened) }
        }
        let source: Source = reopened >= 0 ? .descriptor(reopened) : .path("/proc/self/fd/\(sourceFD)")
        guard let wanted = names(source) else { throw fail("its extended attributes") }
        guard let present = names(.descriptor(target)) else { throw fail("its extended attributes") }
        for name in wanted {
            guard let bytes = value(source, name) else { throw fail("its extended attribute '\(name)'") }
            if value(.descriptor(target), name) == bytes { continue }
            let result = bytes.withUnsafeBytes { raw in fset.map { $0(target, name, raw.baseAddress, raw.count, 0) } }
            guard result == 0 else { throw fail("its extended attribute '\(name)'") }
        }
        for name in present where !wanted.contains(name) {
            guard fremove.map({ $0(target, name) }) == 0 || errno == ENODATA else {
                throw fail("its extended attributes (the new file has '\(name)')")
            }
        }
    }
}
