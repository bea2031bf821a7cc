// The library's text reader over a file descriptor: it takes buffers read by offset; the files layer reads them
// from a descriptor (`FileDescriptor.readFully(at:into:)`). The caller owns every descriptor.

import PNCryptCore
import PNCryptBase
import SystemPackage

extension TextStreamDecryptor {
    /// `choose(ciphertext:length:)` over a regular file, read by offset (its position is not used).
    package func choose(ciphertext fd: FileDescriptor, length: Int) throws(PNCryptError) -> Choice {
        try choose(ciphertext: { (buffer, offset) throws(PNCryptError) in
            try fd.readFully(at: offset, into: buffer)
        }, length: length)
    }

    /// `write(_:ciphertext:to:)` over the regular file `choose` read.
    package func write(_ choice: Choice, ciphertext fd: FileDescriptor, to sink: ByteSink) throws(PNCryptError) {
        try write(choice, ciphertext: { (buffer, offset) throws(PNCryptError) in
            try fd.readFully(at: offset, into: buffer)
        }, to: sink)
    }
}
