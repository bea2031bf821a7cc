// The extended attributes (POSIX ACLs included) a replaced output file keeps (`AtomicOutputFile.commit`), copied by
// xattr calls looked up at run time.

import PNCryptBase
import PNCryptPlatform
import SystemPackage

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

    private static let flist = CLibrary.function("flistxattr", as: List.self)
    private static let fget = CLibrary.function("fgetxattr", as: Get.self)
    private static let fset = CLibrary.function("fsetxattr", as: Set.self)
    private static let fremove = CLibrary.function("fremovexattr", as: Remove.self)
    private static let plist = CLibrary.function("listxattr", as: PathList.self)
    private static let pget = CLibrary.function("getxattr", as: PathGet.self)

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
