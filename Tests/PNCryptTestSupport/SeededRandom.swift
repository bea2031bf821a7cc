// The tests' one seeded random generator (interop cases, stream chunk boundaries, generated strings).

/// SplitMix64: a small seeded generator, so that every run tries the same cases. The interop suite draws only
/// through its own methods (`below`, `int`, `pick`, ...), so its cases are the same on every machine and Swift
/// version too (the standard library's `random(in:using:)` algorithms are not promised to stay the same).
package struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    /// A generator that starts from `seed` as it is.
    package init(seed: UInt64) {
        state = seed
    }

    /// A generator for one test: the run's seed mixed with the test's label (so tests do not share a stream and
    /// their order does not matter).
    package init(seed: UInt64, label: String) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for byte in label.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        state = seed ^ hash
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0 ..< n.
    package mutating func below(_ n: Int) -> Int {
        precondition(n > 0)
        return Int(next() % UInt64(n))
    }

    /// lower ... upper.
    package mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True `numerator` times in `denominator`.
    package mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
        below(denominator) < numerator
    }

    package mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }

    package mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }
}
