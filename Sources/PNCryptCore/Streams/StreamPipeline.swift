import PNCryptBase

/// Runs bytes through stream stages (decompress, encrypt, ...) in order: an array of stages is itself used as one
/// stage (`update(_:)`, `finish()`), and the stages do no I/O of their own.
///
/// ```swift
/// let key = try CipherKey("enigma")
/// let stages: [any ByteStreamStage] = [try Compressor(), try StreamEncryptor(key: key, scheme: .acrh)]
/// while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {   // Foundation's FileHandle
///     try output.write(contentsOf: stages.update(chunk))
/// }
/// try output.write(contentsOf: stages.finish())
/// ```
extension Array where Element == any ByteStreamStage {
    /// Runs `bytes` through the stages and returns the whole output (for data that fits in memory).
    /// - Parameter bytes: the whole stream.
    /// - Throws: the first stage's error.
    public func run(_ bytes: some Collection<UInt8>) throws(PNCryptError) -> [UInt8] {
        try StreamPipeline.run(bytes, through: self)
    }

    /// Runs `chunk` through the stages and returns the output that is ready (the stream goes on: end it with
    /// `finish()`).
    /// - Parameter chunk: the next bytes of the stream.
    /// - Throws: the first stage's error.
    public func update(_ chunk: some Collection<UInt8>) throws(PNCryptError) -> [UInt8] {
        var out: [UInt8] = []
        try withBytes(chunk) { (bytes) throws(PNCryptError) in
            try StageChain.push(bytes, into: self) { out.append(contentsOf: $0) }
        }
        return out
    }

    /// Ends the stream through the stages and returns the rest of the output.
    /// - Throws: the first stage's error (a truncated or corrupt stream, for instance).
    public func finish() throws(PNCryptError) -> [UInt8] {
        var out: [UInt8] = []
        try StageChain.finish(self) { out.append(contentsOf: $0) }
        return out
    }
}

/// Pushing bytes through stages, for the shells (the files layer adds `run(from:through:to:)` over descriptors).
package enum StreamPipeline {
    /// The chunk size read from the input: large enough for OpenSSL and zlib to run at full speed.
    package static let defaultChunkSize = 1 << 20

    /// Runs `bytes` through `stages` and returns the whole output (for buffers that fit in memory).
    package static func run(_ bytes: some Collection<UInt8>, through stages: [any ByteStreamStage])
        throws(PNCryptError) -> [UInt8] {
        var out: [UInt8] = []
        let collect: ByteSink = { out.append(contentsOf: $0) }
        try withBytes(bytes) { (chunk) throws(PNCryptError) in try StageChain.push(chunk, into: stages, collect) }
        try StageChain.finish(stages, collect)
        return out
    }
}
