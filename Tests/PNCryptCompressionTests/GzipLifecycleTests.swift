import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptCompression
import PNCryptTestSupport
import PNCryptBase

/// Every zlib stream is ended (`deflateEnd`/`inflateEnd`) on success, on error and when abandoned.
///
/// Streams report to the `ZlibStreamTracker` bound to the task that creates them, so these counts are not
/// disturbed by tests running in parallel.
@Suite("Gzip zlib stream lifecycle")
struct GzipLifecycleTests {
    typealias Support = CompressionTestSupport

    static let sinkFailed = PNCryptError(.io, "sink failed")

    /// Runs `body` with a fresh tracker and returns it.
    func tracking(_ body: () throws -> Void) rethrows -> ZlibStreamTracker {
        let tracker = ZlibStreamTracker()
        try ZlibStreamTracker.$current.withValue(tracker) { try body() }
        return tracker
    }

    @Test("one-shot compress and decompress end their streams")
    func oneShot() throws {
        let tracker = try tracking {
            let packed = try Compressor.compress(Support.sampleText(count: 10_000))
            _ = try Decompressor.decompress(packed)
            _ = try Compressor.compress(Support.sampleText(count: 10), level: 0)
        }
        #expect(tracker.opened == 3)
        #expect(tracker.ended == 3)
        #expect(tracker.live == 0)
    }

    @Test("streams end as soon as they finish, while the object is still alive")
    func endsOnFinish() throws {
        let tracker = ZlibStreamTracker()
        try ZlibStreamTracker.$current.withValue(tracker) {
            let compressor = try Compressor()
            let decompressor = try Decompressor()
            #expect(tracker.live == 2)
            var packed = try compressor.update(Support.sampleText(count: 1000))
            packed += try compressor.finish()
            #expect(tracker.live == 1)
            try decompressor.update(packed) { _ in }
            try decompressor.finish()
            #expect(tracker.live == 0)
            withExtendedLifetime((compressor, decompressor)) {}
        }
        #expect(tracker.opened == 2 && tracker.ended == 2)
    }

    @Test("corrupt input, the output limit and a failing closure end the stream at once")
    func endsOnError() throws {
        let packed = try Compressor.compress(Support.sampleText(count: 100_000))
        let tracker = ZlibStreamTracker()
        try ZlibStreamTracker.$current.withValue(tracker) {
            let corrupt = try Decompressor()
            #expect(throws: PNCryptError.self) { try corrupt.update(Array("junk".utf8)) { _ in } }
            let limited = try Decompressor(outputLimit: 10)
            #expect(throws: PNCryptError.self) { try limited.update(packed) { _ in } }
            let truncated = try Decompressor()
            try truncated.update(packed.prefix(100)) { _ in }
            #expect(tracker.live == 3 - 2)
            #expect(throws: PNCryptError.self) { try truncated.finish() }
            let failing = try Decompressor()
            #expect(throws: Self.sinkFailed) {
                try failing.update(packed) { (_) throws(PNCryptError) in throw Self.sinkFailed }
            }
            let compressor = try Compressor(chunkSize: 100)
            #expect(throws: Self.sinkFailed) {
                try compressor.update(packed) { (_) throws(PNCryptError) in throw Self.sinkFailed }
            }
            #expect(tracker.live == 0)
            withExtendedLifetime((corrupt, limited, truncated, failing, compressor)) {}
        }
        #expect(tracker.opened == 5 && tracker.ended == 5)
        // The one-shot functions on error.
        let oneShot = tracking {
            #expect(throws: PNCryptError.self) { _ = try Decompressor.decompress(packed + [0]) }
            #expect(throws: PNCryptError.self) { _ = try Decompressor.decompress(packed, outputLimit: 5) }
        }
        #expect(oneShot.opened == 2 && oneShot.live == 0)
    }

    @Test("abandoned compressors and decompressors end their streams when released")
    func endsWhenAbandoned() throws {
        let tracker = ZlibStreamTracker()
        try ZlibStreamTracker.$current.withValue(tracker) {
            do {
                let compressor = try Compressor()
                try compressor.update(Support.sampleText(count: 100_000)) { _ in }
                let decompressor = try Decompressor()
                let packed = try Compressor.compress(Support.sampleText(count: 100_000))
                try decompressor.update(packed.prefix(500)) { _ in }
                #expect(tracker.live == 2)
            }
            #expect(tracker.live == 0)
        }
        #expect(tracker.opened == 3 && tracker.ended == 3)
    }

    @Test("one-shot compression (a publish body's) and file streaming end their streams; invalid settings open none")
    func otherEntryPoints() throws {
        let tracker = try tracking {
            _ = try Compressor.compress(Array(String(repeating: "a", count: 5000).utf8))
            #expect(throws: PNCryptError.self) { _ = try Compressor(level: 11) }
            #expect(throws: PNCryptError.self) { _ = try Decompressor(outputLimit: -5) }
            #expect(throws: PNCryptError.self) {
                let stages: [any ByteStreamStage] = [try Decompressor()]
                try Descriptors.stream(from: -1, to: -1, update: stages.update, finish: stages.finish)
            }
        }
        #expect(tracker.opened == 2)
        // Misuse is invalidValue (docs/testing.md, "Reliability"), never another code.
        expectPNError(.invalidValue, "gzip compression level must be 0 through 9, got 11") {
            _ = try Compressor(level: 11)
        }
        expectPNError(.invalidValue, "output limit must not be negative, got -5") {
            _ = try Decompressor(outputLimit: -5)
        }
        #expect(tracker.live == 0)
    }

    @Test("zlib allocates its state through ZlibMemory and frees every block by deflateEnd/inflateEnd")
    func allocatorIsUsed() throws {
        let deflating = try ZlibStream.deflating(level: 6, windowBits: 31)
        let inflating = try ZlibStream.inflating(windowBits: 47)
        #expect(deflating.liveBlocks > 0)
        #expect(inflating.liveBlocks > 0)
        deflating.end()
        inflating.end()
        #expect(deflating.liveBlocks == 0)
        #expect(inflating.liveBlocks == 0)
        let tracker = try tracking {
            _ = try Decompressor.decompress(try Compressor.compress(Support.sampleText(count: 100_000)))
            let truncated = try Decompressor()
            try truncated.update(try Compressor.compress(Support.sampleText(count: 100_000)).prefix(500)) { _ in }
        }
        #expect(tracker.blocksAllocated >= 4)
        #expect(tracker.blocksLeftAfterEnd == 0)
    }

    @Test("zlib's blocks record their size and are wiped whole before they are freed")
    func allocatorWipes() throws {
        let block = try #require(ZlibMemory.allocate(byteCount: 1000))
        #expect(Int(bitPattern: block) % 16 == 0)
        #expect(ZlibMemory.byteCount(of: block) == 1000)
        block.initializeMemory(as: UInt8.self, repeating: 0xA5, count: 1000)
        ZlibMemory.wipe(block)
        #expect(UnsafeRawBufferPointer(start: block, count: 1000).allSatisfy { $0 == 0 })
        #expect(ZlibMemory.byteCount(of: block) == 1000)
        ZlibMemory.release(block)
        #expect(ZlibMemory.allocate(byteCount: -1) == nil)
        #expect(ZlibMemory.allocate(byteCount: .max) == nil)

        // Through zlib: inflate's 32 KiB window (it held plaintext) is wiped on inflateEnd, as is every block.
        let secret = Array(repeating: Array("secret plaintext ".utf8), count: 40_000).joined()
        let packed = try Compressor.compress(secret)
        let wiped = Locked([Int]())
        let allZero = Locked(true)
        let unpacked = try Wiping.$observer.withValue({ buffer in
            wiped.withLock { $0.append(buffer.count) }
            if !buffer.allSatisfy({ $0 == 0 }) { allZero.withLock { $0 = false } }
        }) {
            try Decompressor.decompress(packed)
        }
        #expect(unpacked == Array(secret))
        #expect(wiped.withLock { $0 }.contains(1 << 15))
        #expect(allZero.withLock { $0 })
    }

    @Test("finish twice, or update after finish, throws invalidValue for the compression stages")
    func finishTwiceThrows() throws {
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        let plaintext = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let stages: [any ByteStreamStage] = [try Compressor(), try Decompressor()]
        let packed = try StreamPipeline.run(plaintext, through: stages)
        #expect(packed == plaintext)
        for stage in stages {
            #expect(expectPNError { try stage.finish { _ in } }?.code == .invalidValue)
            #expect(expectPNError { try stage.update(empty) { _ in } }?.code == .invalidValue)
        }
    }
}
