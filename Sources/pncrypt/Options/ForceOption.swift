import ArgumentParser
import PNCrypt
import PNCryptPlatform
import SystemPackage

/// `-f/--force` of the commands that write binary data: without it, binary data never goes to a terminal (as
/// gzip refuses), where it would garble the screen and could be taken for commands.
struct ForceOption: ParsableArguments {
    @Flag(name: [.customShort("f"), .customLong("force")], help: "Write binary output even to a terminal.")
    var force = false

    static let refusal = "refusing to write binary data to a terminal: redirect it, give -o PATH, or -f to force"

    /// Refuses binary output for standard output when it is a terminal (before any work, in `validate`).
    func check(_ output: OutputOptions) throws {
        if output.output == nil && !force && isatty(STDOUT_FILENO) == 1 { throw ValidationError(Self.refusal) }
    }

    /// Refuses binary output for `fd` when it is a terminal (`-o /dev/tty`).
    func check(descriptor fd: FileDescriptor) throws {
        if !force && isatty(fd.rawValue) == 1 { throw CLIFailure(.usage, Self.refusal) }
    }
}
