import ArgumentParser
import PNCrypt

struct GunzipCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gunzip",
        abstract: "Decompress gzip or zlib data (or raw deflate with --raw), streamed.",
        discussion: """
        Concatenated gzip members decompress as `gzip -d` does. Corrupt or truncated data, a bad CRC or length, \
        trailing garbage, or output beyond --max-size (1 GiB unless told otherwise) exits 1 and writes nothing. \
        Output for standard output waits in an unlinked temporary file in TMPDIR until it is verified: that file \
        holds at most --max-size bytes.

        Examples:
          pncrypt gunzip body.gz -o body.json --max-size 10M
          pncrypt gunzip trusted.gz -o big.tar --max-size none
        """)

    @OptionGroup var input: FileInputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var limits: LimitOptions
    @OptionGroup var progress: ProgressOptions
    @OptionGroup var terminal: RawControlOption

    @Flag(help: "The input is raw deflate (HTTP Content-Encoding: deflate), not gzip or zlib.")
    var raw = false

    @OptionGroup var habits: GzipHabitOptions

    func validate() throws {
        try habits.check(output)
    }

    func run() throws {
        try Self.decompress(try input.resolved, to: output, limit: limits.limit, raw: raw, terminal: terminal,
                            progress: progress)
    }

    /// Decompresses `input` into the output, which appears only once the whole stream has checked out. On a
    /// terminal the decompressed bytes (whoever compressed them chose them) pass the one escaper, as decrypted text
    /// does, unless `--raw-control`.
    static func decompress(_ input: Input, to output: OutputOptions, limit: DecompressionLimit, raw: Bool,
                           terminal: RawControlOption, progress: ProgressOptions) throws {
        let stage = try Decompressor(format: raw ? .rawDeflate : .gzipOrZlib, outputLimit: limit)
        try OutputFile.stream(input, through: [stage], to: output, holdUntilVerified: true, terminal: terminal,
                              progress: progress)
    }
}
