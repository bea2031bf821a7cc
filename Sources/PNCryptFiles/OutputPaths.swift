// Where an output path leads (behind `OutputTarget`, OutputTarget.swift): the path walked one component at a time on
// `O_PATH` descriptors, links followed under the protected-symlinks rule whatever `fs.protected_symlinks` says, and
// what the last component names opened (`OutputLocation`: the folder and the name, for `AtomicOutputFile`); the
// descriptor names (`/dev/stdout`, `/dev/fd/N`, ...), the flags glibc hides, and the output temporaries in a folder.

import PNCryptBase

import PNCryptPlatform
import SystemPackage

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
                do throws(Errno) {
                    return .stream(try retryingInterrupted {
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
                  bytes.containsRun(".pncrypt-".utf8), let name = component(bytes) else { continue }
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
