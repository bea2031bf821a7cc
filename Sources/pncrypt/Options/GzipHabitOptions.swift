import ArgumentParser
import PNCrypt

/// `-c/--stdout` and `-k/--keep`, as gzip users type them: pncrypt writes to standard output unless `-o` says
/// otherwise, and never deletes its input, so both say what happens anyway. `-k` is `--key` in the commands that take
/// a key; gzip and gunzip take none, so there it is gzip's `-k`.
struct GzipHabitOptions: ParsableArguments {
    @Flag(name: [.customShort("c"), .customLong("stdout")], help: """
        Write to standard output, as gzip -c: the default without -o (accepted as gzip users type it).
        """)
    var toStandardOutput = false

    @Flag(name: [.customShort("k"), .customLong("keep")], help: """
        Keep the input file, as gzip -k: pncrypt never deletes its input (accepted as gzip users type it).
        """)
    var keep = false

    /// `-c` and `-o` say two destinations.
    func check(_ output: OutputOptions) throws {
        if toStandardOutput && output.output != nil {
            throw ValidationError("-c writes to standard output and -o to a file: give one")
        }
    }
}
