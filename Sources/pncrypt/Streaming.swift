import Foundation
import ArgumentParser
import PNCrypt

enum Streaming {
    /// Streams the input (TEXT, -i PATH or stdin) through `stages` into the output. With `holdUntilVerified`,
    /// output that cannot be taken back (standard output, a device, a FIFO) waits in a spool until every stage has
    /// finished without error (a file output is always kept only on success).
    static func run(input: InputOptions, output: OutputOptions, stages: [any ByteStreamStage],
                    holdUntilVerified: Bool, progress: ProgressOptions? = nil) throws {
        let line = progress?.line(for: input.input, showsLines: false)
        defer { line?.clear() }
        let out = try OutputFile(path: output.output, inputPath: input.input, durable: output.sync)
        let spool = holdUntilVerified && out.needsSpool ? try Spool() : nil
        let target = spool?.handle ?? out.handle
        if let text = input.text {
            let bytes = try StreamPipeline.run(Array(text.utf8), through: stages)
            try FileHandle(fileDescriptor: target.fileDescriptor).write(contentsOf: bytes)
        } else {
            try input.withHandle {
                try StreamPipeline.run(from: $0, through: stages, to: target, progress: line.map { line in
                    { line.update(bytes: $0) }
                })
            }
            line?.clear()
        }
        try spool?.copy(to: out.handle)
        try out.commit()
    }
}

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
    @OptionGroup var progress: ProgressOptions

    @Option(help: "Compression level 0-9 (default 6, as the PubNub SDKs).")
    var level: Int = Gzip.defaultLevel

    func validate() throws {
        guard (0...9).contains(level) else { throw ValidationError("--level must be 0 to 9") }
    }

    func run() throws {
        try CLI.run {
            try Streaming.run(input: input, output: output, stages: [try GzipCompressor(level: level)],
                              holdUntilVerified: false, progress: progress)
        }
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
    @OptionGroup var progress: ProgressOptions

    @Option(name: .customLong("max-size"), help: ArgumentHelp(MaxSize.help("Refuse"), valueName: "size"),
            transform: MaxSize.parse)
    var maxSize: MaxSize = .standard

    @Flag(help: "The input is raw deflate (HTTP Content-Encoding: deflate), not gzip or zlib.")
    var raw = false

    func run() throws {
        try CLI.run {
            let stage = try GzipDecompressor(format: raw ? .rawDeflate : .gzipOrZlib,
                                         outputLimit: maxSize.limit)
            try Streaming.run(input: input, output: output, stages: [stage], holdUntilVerified: true,
                              progress: progress)
        }
    }
}
