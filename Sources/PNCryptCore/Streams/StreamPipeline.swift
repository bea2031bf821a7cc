import PNCryptJSON

/// Runs bytes through stream stages (decompress, encrypt, ...) in order.
///
/// ```swift
/// let key = try CipherKey("enigma")
/// let sealed = try StreamPipeline.run(Array("notes".utf8), through: [StreamEncryptor(key: key, scheme: .acrh)])
/// ```
/// For data that does not fit in memory, feed each stage's `update(_:_:)` chunk by chunk and end with
/// `finish(_:)`: the stages do no I/O of their own.
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
}
