import ArgumentParser
import PNCrypt

/// Passes a stream through and ends it with a newline (after the text of `encrypt`).
final class LineEnd: ByteStreamStage {
    func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        if input.count > 0 { try sink(input) }
    }

    func finish(_ sink: ByteSink) throws(PNCryptError) {
        try withUnsafeBytes(of: UInt8(ascii: "\n")) { (newline) throws(PNCryptError) in try sink(newline) }
    }
}
