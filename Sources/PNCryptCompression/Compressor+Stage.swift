import PNCryptBase
import PNCryptCore

/// The compressor as a stream stage, so compression chains with encryption:
/// `[Compressor(), StreamEncryptor(key:scheme:)]` compresses, then encrypts.
extension Compressor: ByteStreamStage {
    /// Compresses `input`, writing compressed pieces as zlib produces them.
    public func update(_ input: UnsafeRawBufferPointer,
                       _ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        try engine.deflate(input, flush: .none, output: sink)
    }

    /// Ends the gzip member and writes its trailer.
    public func finish(_ sink: (UnsafeRawBufferPointer) throws(PNCryptError) -> Void) throws(PNCryptError) {
        try engine.end(.finish, output: sink)
    }
}
