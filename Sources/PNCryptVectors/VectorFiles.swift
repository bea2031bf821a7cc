// The file system calls of the vector checker (POSIX, so this target needs no Foundation either). Every descriptor
// and directory stream opened here is closed before the function returns.
import PNCrypt
import PNCryptPlatform

enum VectorFiles {
    /// The whole content of the file at `path`, or nil when it cannot be opened or read.
    static func contents(of path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            guard let n = try? chunk.withUnsafeMutableBytes({ buffer throws(SystemError) in
                try SystemIO.read(fd, into: buffer)
            }) else { return nil }
            if n == 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// Whether `path` is a folder; nil when nothing is there.
    static func isDirectory(_ path: String) -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    /// The names in the folder at `path` (without `.` and `..`), unsorted; empty when it cannot be read.
    static func names(in path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
