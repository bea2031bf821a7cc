// The library's text reader over a file descriptor: it takes buffers read by offset; the files layer reads them
// from a descriptor (through `FileIO`). The caller owns every descriptor.

import PNCryptCore
import PNCryptBase

extension TextStreamDecryptor {
    /// `choose(ciphertext:length:)` over a regular file, read by offset (its position is not used).
    package func choose(ciphertext fd: Int32, length: Int) throws(PNCryptError) -> Choice {
        try choose(ciphertext: { (buffer, offset) throws(PNCryptError) in
            try FileIO.readFully(fd, at: offset, into: buffer)
        }, length: length)
    }

    /// `write(_:ciphertext:to:)` over the regular file `choose` read.
    package func write(_ choice: Choice, ciphertext fd: Int32, to sink: ByteSink) throws(PNCryptError) {
        try write(choice, ciphertext: { (buffer, offset) throws(PNCryptError) in
            try FileIO.readFully(fd, at: offset, into: buffer)
        }, to: sink)
    }
}
