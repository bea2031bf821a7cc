import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// Where a command's input comes from, once its arguments are read: TEXT, a file (`-` is standard input), or
/// standard input. A path is the bytes the command line gave (`RawArguments`), exactly.
struct Input {
    var text: String?
    var path: FilePath?

    /// The input is standard input.
    var isStandardInput: Bool { text == nil && filePath == nil }

    /// The file named, nil for TEXT and standard input.
    var filePath: FilePath? { path == "-" ? nil : path }

    /// What the input is called in messages (a path as `FilePath.shown` shows it).
    var describe: String { filePath.map { "'\($0.shown)'" } ?? "standard input" }

    /// The whole input in memory, at most `limit` bytes (`--max-input`): larger input is refused (exit 64) having
    /// read no more than `limit` bytes of it. A regular file is read as it was when it was opened (a snapshot).
    func readAll(limit: Int) throws -> [UInt8] {
        let refusal = refusal(limit: limit)
        if let text {
            guard text.utf8.count <= limit else { throw CLIFailure(.usage, refusal) }
            return Array(text.utf8)
        }
        return try withDescriptor { fd in
            if let length = fd.snapshotLength, length > limit { throw CLIFailure(.usage, refusal) }
            var out: [UInt8] = []
            do throws(PNCryptError) {
                try fd.pump(chunkSize: 1 << 16) { (chunk) throws(PNCryptError) in
                    guard chunk.count <= limit - out.count else { throw PNCryptError(.invalidValue, refusal) }
                    out.append(contentsOf: chunk)
                }
            } catch where error.code == .invalidValue {
                throw CLIFailure(.usage, refusal)
            } catch {
                throw CLIFailure(.ioError, "cannot read \(describe): \(error.message)")
            }
            return out
        }
    }

    /// The refusal of input larger than `limit` bytes (`--max-input`).
    func refusal(limit: Int) -> String {
        "\(text == nil ? describe : "the text given") is larger than \(limit.counting("byte")), the "
            + "limit for input held in memory whole (--max-input SIZE raises it; --lines, where a command has it, "
            + "reads any size)"
    }

    /// Runs `body` with a descriptor reading the input file or standard input (not for TEXT).
    func withDescriptor<R>(_ body: (FileDescriptor) throws -> R) throws -> R {
        guard let path = filePath else { return try body(.standardInput) }
        let fd = try Self.open(path)
        defer { try? fd.close() }
        return try body(fd)
    }

    /// Opens an input file for reading (the files layer's `InputFiles.open`).
    static func open(_ path: FilePath) throws -> FileDescriptor {
        try InputFiles.open(path)
    }
}
