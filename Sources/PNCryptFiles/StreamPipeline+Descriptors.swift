// A stream over file descriptors: the library's stream stages take chunks; the files layer feeds them from a
// descriptor (`FileDescriptor.pump`). The caller owns every descriptor.

import PNCryptCore
import PNCryptBase
import SystemPackage

extension StreamPipeline {
    /// Reads the file descriptor `input` to its end, runs every chunk through `stages` in order, and writes the
    /// result to the file descriptor `output`. Neither descriptor is closed.
    ///
    /// A regular file is read as a snapshot: to `length` bytes from its position, else to the end it had when the
    /// call began. Bytes another process appends meanwhile are never read (nor written in any form), and a file
    /// that gets shorter is an `io` error. A pipe, a terminal or a device is read to its end.
    /// - Parameters:
    ///   - input: the descriptor to read, to its end.
    ///   - stages: the stages, in order (each one's output is the next one's input).
    ///   - output: the descriptor to write.
    ///   - chunkSize: how many bytes are read at a time.
    ///   - length: how many bytes to read (the length of a file when its last blocks were checked, for
    ///     instance); nil reads a regular file to the end it has when the call begins, anything else to its end.
    ///   - progress: called after each chunk with the number of input bytes read so far.
    /// - Throws: `invalidValue` for a `chunkSize` below 1 or a negative `length`; the first stage's error, or
    ///   `io` when reading or writing fails or the input ends before `length`. Output already written stays
    ///   written: write to a temporary file and keep it only on success.
    package static func run(from input: FileDescriptor, through stages: [any ByteStreamStage],
                            to output: FileDescriptor, chunkSize: Int = defaultChunkSize, length: Int? = nil,
                            progress: ((Int64) -> Void)? = nil) throws(PNCryptError) {
        let write: ByteSink = { (chunk) throws(PNCryptError) in try output.writeStream(chunk) }
        var total: Int64 = 0
        try input.pump(chunkSize: chunkSize, length: length) { (chunk) throws(PNCryptError) in
            try StageChain.push(chunk, into: stages, write)
            total += Int64(chunk.count)
            progress?(total)
        }
        try StageChain.finish(stages, write)
    }
}
