// The POSIX file plumbing of the C library's file functions (CFiles.swift): an input streamed through stages into
// an output that appears whole, over the files layer the CLI's `-o` uses.
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// The file functions over the files layer the CLI's `-o` uses (`FileOutput`, `InputSource`): the output is
/// written to a file with no name in its folder and appears only when every stage has finished (links followed
/// once under the protected-symlinks rule; the replaced file's owner, group, mode and extended attributes kept, a
/// new file 0600); removed on any failure. An output that is not a regular file (a device, a FIFO, one of the
/// process's descriptors) is refused: what is written there cannot be taken back. The stream itself is
/// `StreamPipeline.run`, which wipes its read buffer.
enum FileTransform {
    /// Streams the file at `inPath` through `stages` into `outPath` (encryption: the input is read once).
    static func run(input inPath: FilePath, output outPath: FilePath, stages: [any ByteStreamStage]) throws {
        let fd = try files { () throws(FileError) in try InputFiles.open(inPath) }
        defer { try? fd.close() }
        try run(fd, named: "'\(inPath.shown)'", output: outPath, stages: stages)
    }

    /// The input at `path` as a source that can be read more than once (decryption chooses the key on the last
    /// blocks first): a regular file, else (a FIFO, a device) a copy in an unlinked 0600 temporary file.
    static func source(_ path: FilePath) throws -> InputSource {
        try files { () throws(FileError) in try InputSource(path: path, name: "'\(path.shown)'") }
    }

    /// Streams `source` from its start through `stages` into `outPath`, to the length it had when it was opened
    /// (the snapshot its last blocks were checked in: nothing appended since is read).
    static func run(_ source: InputSource, output outPath: FilePath, stages: [any ByteStreamStage]) throws {
        let start = try files { () throws(FileError) in try source.fromStart() }
        try run(start.fd, named: source.name, output: outPath, stages: stages, length: start.length)
    }

    /// Streams `input` (a regular file to `length`, else to the end it has when the stream begins) into `outPath`.
    private static func run(_ input: FileDescriptor, named name: String, output outPath: FilePath,
                            stages: [any ByteStreamStage], length: Int? = nil) throws {
        var info = stat()
        let hasInput = fstat(input.rawValue, &info) == 0
        let file = try files { () throws(FileError) in
            try FileOutput(outPath, input: hasInput ? (info, name) : nil, streams: false, cleanupOnSignal: false)
        }
        try StreamPipeline.run(from: input, through: stages, to: file.fd, length: length)
        do throws(FileError) {
            // A new file stays 0600, as the C functions always made it; a replaced one keeps its access.
            try file.commit(newMode: FileOutput.newFileMode, durable: false)
        } catch {
            throw CFailure(ErrorCodes.io, error.message)
        }
    }

    /// Runs `body`, reporting a file error with its C code (`CFailure.init(_: FileError)`): an input that cannot be
    /// found as `PNCRYPT_E_FILE_NOT_FOUND`, an output over the input or not a regular file as `PNCRYPT_E_ARGUMENT`,
    /// the rest as `PNCRYPT_E_IO`.
    private static func files<R>(_ body: () throws(FileError) -> R) throws -> R {
        do throws(FileError) {
            return try body()
        } catch {
            throw CFailure(error)
        }
    }
}
