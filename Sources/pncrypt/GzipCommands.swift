import ArgumentParser
import PNCrypt

struct GzipCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gzip",
        abstract: "Compress with gzip framing (as PubNub's compressed publish does), streamed.",
        discussion: """
        The output is a standard gzip file: `gzip -d` reads it, and `pncrypt gunzip` reads `gzip` output.

        Example:
          pncrypt gzip -i big.json -o big.json.gz --level 9
        """)

    @OptionGroup var input: InputOptions
    @OptionGroup var output: OutputOptions

    @Option(help: "Compression level 0-9 (default 6, as the PubNub SDKs).")
    var level: Int = Gzip.defaultLevel

    func validate() throws {
        guard (0...9).contains(level) else { throw ValidationError("--level must be 0 to 9") }
    }

    func run() throws {
        try OutputFile.stream(input, through: [try GzipCompressor(level: level)], to: output)
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
          pncrypt gunzip -i body.gz -o body.json --max-size 10M
          pncrypt gunzip -i trusted.gz -o big.tar --max-size none
        """)

    @OptionGroup var input: InputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var limits: LimitOptions

    @Flag(help: "The input is raw deflate (HTTP Content-Encoding: deflate), not gzip or zlib.")
    var raw = false

    func run() throws {
        let stage = try GzipDecompressor(format: raw ? .rawDeflate : .gzipOrZlib, outputLimit: limits.limit)
        try OutputFile.stream(input, through: [stage], to: output, holdUntilVerified: true)
    }
}
