// The file system calls of the vector checker (POSIX, so this target needs no Foundation either). Every descriptor
// and directory stream opened here is closed before the function returns.
import PNCrypt
import PNCryptPlatform
import SystemPackage

enum VectorFiles {
    /// The whole content of the file at `path` (its bytes, exactly), or nil when it cannot be opened or read.
    static func contents(of path: FilePath) -> [UInt8]? {
        guard let fd = try? FileDescriptor.open(path, .readOnly, options: .closeOnExec) else { return nil }
        defer { try? fd.close() }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            guard let n = try? chunk.withUnsafeMutableBytes({ try fd.read(into: $0) }) else { return nil }
            if n == 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// Whether `path` is a folder; nil when nothing is there.
    static func isDirectory(_ path: FilePath) -> Bool? {
        var info = stat()
        guard path.withPlatformString({ stat($0, &info) }) == 0 else { return nil }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    /// The names in the folder at `path` (without `.` and `..`), unsorted; empty when it cannot be read.
    static func names(in path: FilePath) -> [FilePath.Component] {
        guard let directory = path.withPlatformString({ opendir($0) }) else { return [] }
        defer { closedir(directory) }
        var names: [FilePath.Component] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { FilePath.Component(platformString: $0) }
            }
            if let name, name.kind == .regular { names.append(name) }
        }
        return names
    }
}
