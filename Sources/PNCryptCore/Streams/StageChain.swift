// Pushing chunks through a chain of stream stages (the work of `StreamPipeline`). Every chunk is borrowed for the
// duration of one call, as `ByteSink` says; nothing here keeps one.

import PNCryptBase


package enum StageChain {
    /// Feeds `chunk` to stage `index` of `stages`, that stage's output to the next one, and the output of the last
    /// one to `sink`.
    package static func push(_ chunk: UnsafeRawBufferPointer, into stages: [any ByteStreamStage], at index: Int = 0,
                     _ sink: ByteSink) throws(PNCryptError) {
        guard index < stages.count else { return try sink(chunk) }
        try stages[index].update(chunk) { (output) throws(PNCryptError) in
            try push(output, into: stages, at: index + 1, sink)
        }
    }

    /// Finishes every stage in order, the last output of each going through the stages after it.
    package static func finish(_ stages: [any ByteStreamStage], _ sink: ByteSink) throws(PNCryptError) {
        for index in stages.indices {
            try stages[index].finish { (output) throws(PNCryptError) in
                try push(output, into: stages, at: index + 1, sink)
            }
        }
    }
}
