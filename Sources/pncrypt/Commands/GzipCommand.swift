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
