import PNCryptJSON

/// Runs bytes through stream stages (decompress, encrypt, ...) in order.
///
/// ```swift
/// let key = try CipherKey("enigma")
/// let sealed = try StreamPipeline.run(Array("notes".utf8), through: [StreamEncryptor(key: key, scheme: .acrh)])
/// ```
/// Data that does not fit in memory goes through chunk by chunk, read and written by the caller (the stages do no
/// I/O of their own):
///
/// ```swift
/// while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {   // Foundation's FileHandle
///     try output.write(contentsOf: StreamPipeline.update(chunk, through: stages))
/// }
/// try output.write(contentsOf: StreamPipeline.finish(stages))
/// ```
public enum StreamPipeline {
    /// The chunk size read from the input: large enough for OpenSSL and zlib to run at full speed.
    public static let defaultChunkSize = 1 << 20

    /// Runs `bytes` through `stages` and returns the whole output (for buffers that fit in memory).
    public static func run(_ bytes: some Collection<UInt8>, through stages: [any ByteStreamStage])
        throws(PNCryptError) -> [UInt8] {
        var out: [UInt8] = []
        let collect: ByteSink = { out.append(contentsOf: $0) }
        try withBytes(bytes) { (chunk) throws(PNCryptError) in try StageChain.push(chunk, into: stages, collect) }
        try StageChain.finish(stages, collect)
        return out
    }

    /// Runs `chunk` through `stages` and returns the output that is ready (the stream goes on: end it with
    /// `finish(_:)`).
    /// - Parameters:
    ///   - chunk: the next bytes of the stream.
    ///   - stages: the stages, in order (each one's output is the next one's input).
    /// - Throws: the first stage's error.
    public static func update(_ chunk: some Collection<UInt8>, through stages: [any ByteStreamStage])
        throws(PNCryptError) -> [UInt8] {
        var out: [UInt8] = []
        try withBytes(chunk) { (bytes) throws(PNCryptError) in
            try StageChain.push(bytes, into: stages) { out.append(contentsOf: $0) }
        }
        return out
    }

    /// Ends the stream through `stages` and returns the rest of the output.
    /// - Parameter stages: the stages `update(_:through:)` was called with.
    /// - Throws: the first stage's error (a truncated or corrupt stream, for instance).
    public static func finish(_ stages: [any ByteStreamStage]) throws(PNCryptError) -> [UInt8] {
        var out: [UInt8] = []
        try StageChain.finish(stages) { out.append(contentsOf: $0) }
        return out
    }
}
