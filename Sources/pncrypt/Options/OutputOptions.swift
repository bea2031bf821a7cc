import ArgumentParser
import PNCrypt
import SystemPackage

/// Output: `-o PATH`, else standard output.
struct OutputOptions: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp(
        "Write output to a file. It is written to a new temporary file beside it (mode 0600, removed on failure, "
        + "Ctrl-C, SIGTERM or SIGHUP) and renamed into place only on success; an existing file keeps its "
        + "permissions (and owner where allowed), a new one gets the umask default. A symbolic link is followed: "
        + "its target is replaced, the link kept. A device or FIFO (/dev/null, /dev/stdout, a named pipe) is "
        + "written directly, never replaced; decrypt and gunzip hold output for it until verified, as for "
        + "standard output.",
        valueName: "path"), completion: .file())
    var output: String?

    /// The bytes `-o` was given (`RawArguments`), nil without `-o`.
    var path: FilePath? {
        get throws { try RawArguments.path(output, long: "--output", short: "-o") }
    }

    @Flag(name: .customLong("sync"), help: ArgumentHelp(
        "With -o: flush the output to disk (fsync the file, then its directory after the rename) before exiting, "
        + "so it survives a power loss. Without it the output is still all-or-nothing if the process dies, as "
        + "with gzip and openssl, but the kernel writes it back later."))
    var sync = false

    func validate() throws {
        if sync && output == nil {
            throw ValidationError("--sync goes with -o PATH (it flushes the output file to disk)")
        }
    }
}
