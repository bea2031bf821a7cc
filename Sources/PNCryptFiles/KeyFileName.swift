import PNCryptBase
import PNCryptPlatform

extension InputFiles {
    /// Whether `bytes`, taken as a path, name an existing regular file: what a shell tells `FailureHint` about a
    /// key given as text (`FailureHint.Key.namesFile`: a path given where the key itself goes). False for bytes
    /// that cannot be a path (empty, holding a NUL, longer than `PATH_MAX`). The copy made for the call is wiped.
    package static func namesRegularFile(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty, !bytes.contains(0), bytes.count < Int(PATH_MAX) else { return false }
        var path = bytes + [0]
        defer { wipe(&path) }
        var info = stat()
        let found = path.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { stat($0, &info) == 0 }
        }
        return found && info.st_mode & S_IFMT == S_IFREG
    }
}
