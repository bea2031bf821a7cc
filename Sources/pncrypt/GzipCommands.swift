import ArgumentParser
import PNCrypt

struct GzipCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gzip",
        abstract: "Compress with gzip framing (as PubNub's compressed publish does), streamed; -d decompresses.",
        discussion: """
        The output is a standard gzip file: `gzip -d` reads it, and `pncrypt gunzip` reads `gzip` output. As \
        with gzip, the compressed data is not written to a terminal without -f. `pncrypt gzip -d` is \
        `pncrypt gunzip`.

        Examples:
          pncrypt gzip big.json -o big.json.gz --level 9
          pncrypt gzip -d big.json.gz -o big.json
        """)

    @OptionGroup var input: FileInputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var force: ForceOption
    @OptionGroup var progress: ProgressOptions

    @Flag(name: [.customShort("d"), .customLong("decompress")], help: "Decompress, as pncrypt gunzip does.")
    var decompress = false

    @Option(help: "Compression level 0-9 (default 6, as the PubNub SDKs).")
    var level: Int?

    @OptionGroup var limits: LimitOptions
    @OptionGroup var terminal: RawControlOption
    @OptionGroup var habits: GzipHabitOptions

    func validate() throws {
        try habits.check(output)
        if let level, !(0...9).contains(level) { throw ValidationError("--level must be 0 to 9") }
        if decompress && level != nil { throw ValidationError("--level goes with compression, not -d") }
        if !decompress && limits.maxSize != nil { throw ValidationError("--max-size goes with -d") }
        if !decompress && terminal.rawControl { throw ValidationError("--raw-control goes with -d") }
        if !decompress { try force.check(output) }
    }

    func run() throws {
        guard !decompress else {
            return try GunzipCommand.decompress(try input.resolved, to: output, limit: limits.limit, raw: false,
                                                terminal: terminal, progress: progress)
        }
        try OutputFile.stream(try input.resolved, through: [try Compressor(level: level ?? Compressor.defaultLevel)],
                              to: output, binary: force, progress: progress)
    }
}

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
