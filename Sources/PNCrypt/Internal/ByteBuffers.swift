// The raw-memory buffers behind the JSON codec: `MoveStack` (the parser's stacks of unfinished values) and
// `ByteBuffer` (the writer's output).
//
// Ownership: each value owns the memory its `base` points to and is the only one holding that pointer (a final
// class that never hands it out, or a noncopyable struct); it frees the memory in `deinit`, after destroying
// the elements still initialized in it. Views handed out (`ByteBuffer.bytes`) are valid only until the next
// mutation and never outlive the owner. Neither type wipes: `ByteBuffer`'s user wipes plaintext through
// `wipe(_:)` before the buffer goes away.

/// A stack that hands its top elements over to a new array (closing a container of n values costs one
/// allocation and a copy).
///
/// Ownership: `base` holds `count` initialized elements and `capacity` slots; `deinit` destroys and frees them.
/// While `capacity` is 0, `base` is a placeholder that is never read, written or freed.
final class MoveStack<Element> {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    /// Nothing is allocated until the first `append` (a document without containers needs no stack).
    init() {
        capacity = 0
        base = UnsafeMutablePointer(bitPattern: MemoryLayout<Element>.alignment)!
    }

    deinit {
        guard capacity > 0 else { return }
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always)
    func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    private func grow() {
        let newCapacity = max(16, capacity * 2)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if capacity > 0 {
            newBase.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = newBase
        capacity = newCapacity
    }

    /// Moves the elements from `start` to the top into a new array, in order, and pops them.
    func moveOut(from start: Int) -> [Element] {
        let moved = count - start
        if moved == 0 { return [] }
        let source = base + start
        count = start
        // Small containers (most of a message) copy, then destroy the originals: the moving
        // `Array(unsafeUninitializedCapacity:)` allocates through a generic runtime path (a metadata lookup, ~400
        // instructions) that costs more than retaining and releasing a few elements. Larger ones move.
        if moved <= 8 {
            let result = Array(UnsafeBufferPointer(start: source, count: moved))
            source.deinitialize(count: moved)
            return result
        }
        return [Element](unsafeUninitializedCapacity: moved) { buffer, initialized in
            buffer.baseAddress!.moveInitialize(from: source, count: moved)
            initialized = moved
        }
    }
}

/// A growable byte buffer for the writer: appends without `Array`'s uniqueness and capacity bookkeeping.
///
/// Ownership: `base` holds `capacity` bytes of which the first `count` are written; it is freed in `deinit`.
/// Noncopyable, so the pointer has exactly one owner.
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written so far, valid until the next append.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// A copy of the bytes written as an array.
    func array() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    private mutating func grow(to minimum: Int) {
        var newCapacity = capacity * 2
        while newCapacity < minimum { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
