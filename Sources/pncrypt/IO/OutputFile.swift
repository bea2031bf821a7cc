import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// Output that appears only when the command succeeds: standard output, or `-o PATH` through the files layer's
/// `FileOutput` (shared with the C library), which holds every promise about output files: a file appears only on
/// `commit()`, whole, with the replaced file's owner, group, mode and extended attributes (POSIX ACLs), or
/// `0600 & ~umask` for a new file (`FileOutput.newFileMode`, as the C library's); on failure, or on any signal that
/// ends the process (`SignalCleanup`), nothing is left. A path that is a symbolic link is followed: the file it
/// points to is replaced and the link is kept.
///
/// Surviving a power loss also needs the data and the rename on disk: with `durable` (`--sync`), `commit()` fsyncs
/// the file before the rename and the directory after it. That is not the default: like gzip and openssl, pncrypt
/// leaves write-back to the kernel (the fsync of a large file can cost as much as encrypting it).
///
/// A path that is not a regular file (a character device such as `/dev/null`, a FIFO, `/dev/stdout`) is opened and
/// written directly, never replaced: such output cannot be taken back, so `needsSpool` is true and callers hold
/// unverified output until it is verified, as for standard output.
final class OutputFile {
    /// The descriptor to write to: the temporary file, a device or FIFO, or standard output.
    let fd: FileDescriptor
    /// Bytes written to `fd` cannot be taken back (standard output, a device, a FIFO): output that is not yet
    /// verified must wait in a `Spool`.
    let needsSpool: Bool
    /// The output of `-o`; nil for standard output.
    private let output: FileOutput?
    private let durable: Bool

    /// Opens the output. Refuses to write over the input file: the file named (`inputPath`, and each of
    /// `moreInputs` for a command that reads several), or with `standardInput` the file standard input is (`< f`):
    /// compared by device and inode, not by name.
    init(path: FilePath?, inputPath: FilePath?, moreInputs: [FilePath] = [], standardInput: Bool = false,
         durable: Bool = false) throws {
        self.durable = durable
        guard let path else {
            (output, fd, needsSpool) = (nil, .standardOutput, true)
            return
        }
        var info = stat()
        let input: (info: stat, name: String)? = if let inputPath {
            inputPath.withPlatformString { stat($0, &info) } == 0 ? (info, "'\(inputPath.shown)'") : nil
        } else if standardInput && fstat(STDIN_FILENO, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
            (info, "(standard input is that file)")
        } else {
            nil
        }
        var inputs = input.map { [$0] } ?? []
        for more in moreInputs where more.withPlatformString({ stat($0, &info) }) == 0 {
            inputs.append((info, "'\(more.shown)'"))
        }
        let opened: FileOutput
        do throws(FileError) {
            opened = try FileOutput(path, inputs: inputs, streams: true, cleanupOnSignal: true)
        } catch {
            throw CLIFailure(error)
        }
        (output, fd, needsSpool) = (opened, opened.fd, !opened.canTakeBack)
        for leftover in opened.otherTemporaries {
            // Only a file of the caller's can be a run of theirs; anyone who can write to the folder can choose
            // the name.
            if leftover.owner == geteuid() {
                CLI.warning("'\(leftover.path.shown)' looks like the temporary file of an interrupted pncrypt run "
                            + "(or of one still running); it may hold plaintext: remove it if no run is going")
            } else {
                let owner = leftover.owner.map { "is owned by uid \($0), not by you" } ?? "has an owner not known"
                CLI.warning("'\(leftover.path.shown)' has the name of a pncrypt temporary file but \(owner); "
                            + "it was left alone")
            }
        }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) throws {
        try fd.writeAll(bytes, naming: "output")
    }

    /// Makes the output final: gives the file its access and puts it in place (a device or FIFO is closed).
    /// Any failure removes the temporary file and leaves the path as it was.
    func commit() throws {
        try output?.commit(newMode: FileOutput.newFileMode, durable: durable)
    }

    /// Throws the output away; the path is left as it was.
    func abandon() {
        output?.abandon()
    }
}

extension OutputFile {
    /// The one way a command produces output: opens `-o` (else standard output; never over the input file),
    /// lets `body` write to a descriptor, and commits. With `holdUntilVerified`, output that cannot be taken back
    /// (standard output, a device, a FIFO) waits in a `Spool` until `body` has returned; a file is always renamed
    /// into place only on success. Any failure leaves nothing. Binary output (`binary` given) is refused for a
    /// terminal unless `--force`.
    static func produce(_ output: OutputOptions, input: Input, binary: ForceOption? = nil,
                        holdUntilVerified: Bool = false, _ body: (FileDescriptor) throws -> Void) throws {
        try produce(output, input: input, binary: binary, holdUntilVerified: holdUntilVerified) { fd, _ in
            try body(fd)
        }
    }

    /// `produce`, telling `body` also the descriptor its output ends up on (standard output, a device or FIFO, or
    /// the file's temporary file), which differs from the one it writes to while the output is held: whether that
    /// is a terminal decides how text is written.
    static func produce(_ output: OutputOptions, input: Input, binary: ForceOption? = nil,
                        holdUntilVerified: Bool = false,
                        _ body: (FileDescriptor, _ final: FileDescriptor) throws -> Void) throws {
        let out = try OutputFile(path: try output.path, inputPath: input.filePath, standardInput: input.isStandardInput,
                                 durable: output.sync)
        try binary?.check(descriptor: out.fd)
        let spool = holdUntilVerified && out.needsSpool ? try Spool() : nil
        try body(spool?.fd ?? out.fd, out.fd)
        try spool?.copy(to: out.fd)
        try out.commit()
    }

    /// Writes `bytes` (already verified) as the whole output.
    static func write(_ bytes: [UInt8], to output: OutputOptions, input: Input, binary: ForceOption? = nil) throws {
        try produce(output, input: input, binary: binary) { try $0.writeAll(bytes, naming: "output") }
    }

    /// Writes a JSON text (already verified) as the whole output: on a terminal, its DEL and C1 controls (which
    /// JSON strings may hold raw, copied from the input) are escaped as `\u00XX` unless `rawControl`.
    static func write(json bytes: [UInt8], to output: OutputOptions, input: Input, rawControl: Bool = false) throws {
        try produce(output, input: input) { fd in
            try fd.writeAll(TerminalEscaper.json(bytes, for: fd, raw: rawControl), naming: "output")
        }
    }

    /// Streams the input (TEXT, a file or standard input) through `stages` into the output, as `produce`.
    /// `progress` shows how far a file input has got (see `ProgressOptions`). `terminal` (output that is data the
    /// command did not make, such as decompressed bytes): when the output ends up on a terminal, it passes the one
    /// escaper (`TerminalEscaper`) unless `--raw-control` was given.
    static func stream(_ input: Input, through stages: [any ByteStreamStage], to output: OutputOptions,
                       binary: ForceOption? = nil, holdUntilVerified: Bool = false,
                       terminal: RawControlOption? = nil, progress: ProgressOptions? = nil) throws {
        try produce(output, input: input, binary: binary, holdUntilVerified: holdUntilVerified) { out, final in
            var stages = stages
            if let terminal, let escaper = TerminalEscaper.forOutput(final, raw: terminal.rawControl) {
                stages.append(escaper)
            }
            if let text = input.text {
                try out.writeAll(try StreamPipeline.run(Array(text.utf8), through: stages), naming: "output")
            } else {
                let line = progress?.line(for: input.filePath, showsLines: false)
                try input.withDescriptor { try $0.stream(through: stages, to: out, progress: line) }
            }
        }
    }
}
