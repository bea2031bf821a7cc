import PNCryptBase
import PNCryptTestSupport
import Testing

/// The one wipe (`wipe`, and its test hook `Wiping.observer`), the scratch and copy helpers that wipe what they
/// copied, and `counting`.
@Suite struct WipeAndBytesTests {
    static func wipes(_ body: () throws -> Void) rethrows -> [Int] { try wipedBuffers(body) }

    @Test("wipe zeroes the bytes it is given, and only those, and shows them to the observer")
    func wipeZeroes() {
        var bytes = [UInt8](repeating: 0xA5, count: 64)
        let seen = Self.wipes {
            bytes.withUnsafeMutableBytes { wipe($0.baseAddress! + 8, count: 40) }
        }
        #expect(seen == [40])
        #expect(bytes[0..<8].allSatisfy { $0 == 0xA5 } && bytes[48...].allSatisfy { $0 == 0xA5 })
        #expect(bytes[8..<48].allSatisfy { $0 == 0 })
        var array: [UInt8] = Array("secret".utf8)
        #expect(Self.wipes { wipe(&array) } == [6])
        #expect(array == [0, 0, 0, 0, 0, 0])
        var empty: [UInt8] = []
        #expect(Self.wipes { wipe(&empty) } == [], "nothing to wipe, nothing shown")
    }

    @Test("withBytes lends contiguous storage as it is, and wipes the copy it makes of anything else")
    func withBytesCopies() {
        let contiguous: [UInt8] = [1, 2, 3]
        var sum = 0
        #expect(Self.wipes { withBytes(contiguous) { sum = $0.reduce(0) { $0 + Int($1) } } } == [])
        #expect(sum == 6)
        let lazy = (0..<50).lazy.map { UInt8($0) }
        var seen: [UInt8] = []
        #expect(Self.wipes { withBytes(lazy) { seen = Array($0) } } == [50])
        #expect(seen == Array(0..<50))
    }

    @Test("withScratch gives the count asked for, on the stack or the heap; makeBytes keeps what body wrote")
    func scratchAndMakeBytes() throws {
        for count in [0, 1, 1024, 1025, 100_000] {
            withScratch(count) { buffer in
                #expect(buffer.count == count)
                if count > 0 { buffer.storeBytes(of: 7, toByteOffset: count - 1, as: UInt8.self) }
            }
        }
        let made = try makeBytes(capacity: 10) { pointer in
            for index in 0..<4 { pointer.storeBytes(of: UInt8(index), toByteOffset: index, as: UInt8.self) }
            return 4
        }
        #expect(made == [0, 1, 2, 3])
        var thrown: PNCryptError?
        do throws(PNCryptError) {
            _ = try makeBytes(capacity: 4) { (_) throws(PNCryptError) -> Int in
                throw PNCryptError(.invalidValue, "no")
            }
        } catch {
            thrown = error
        }
        #expect(thrown?.code == .invalidValue)
    }

    @Test("isSpace is JSON's white space, and counting says one thing, two things")
    func spaceAndCounting() {
        #expect((0...255).filter { isSpace(UInt8($0)) } == [0x09, 0x0A, 0x0D, 0x20])
        #expect(1.counting("byte") == "1 byte")
        #expect(0.counting("byte") == "0 bytes")
        #expect(2.counting("line") == "2 lines")
    }
}
