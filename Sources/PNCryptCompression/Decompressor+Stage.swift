import PNCryptBase
import PNCryptCore

/// The decompressor as a stream stage: `[StreamDecryptor(key:), Decompressor()]` decrypts, then
/// decompresses. `finish` checks the compressed stream is complete (CRC and length for gzip).
extension Decompressor: ByteStreamStage {
    /// Decompresses `input`, writing pieces within the output limit.
    public func update(_ input: UnsafeRawBufferPointer,
                       _ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        try engine.inflate(input, output: sink)
    }

    /// Checks the compressed stream ended completely (CRC and length for gzip).
    public func finish(_ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        try engine.finish()
    }
}
