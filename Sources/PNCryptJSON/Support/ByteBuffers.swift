// The raw-memory buffers behind the JSON codec: `InlineStack` (the parser's stacks of unfinished values) and
// `ByteBuffer` (the writer's output). Both start in memory the caller lends them (stack scratch from
// `withUnsafeTemporaryAllocation`, so a message needs no heap block for them) and move to the heap only when
// that runs out.
//
// Ownership: both are noncopyable, so each pointer has exactly one holder.
// - Lent memory is never freed by them, and they never outlive it: they are created and destroyed inside the
//   closure that lends it.
// - Heap memory they allocate when growing is theirs alone and freed in `deinit` (or when they grow again).
// - `InlineStack` destroys the elements still on it in `deinit`, wherever they are.
// - `ByteBuffer.withBytes` lends a view of the bytes for the length of one call.
// - A `ByteBuffer` made with `secret: true` (message plaintext) wipes every block it leaves behind when it
//   grows, lent memory included, and what it holds in `deinit`.

import PNCryptBase

/// A stack whose elements start in lent memory and that hands its top elements over to a new array.
struct InlineStack<Element>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private var onHeap = false
    package private(set) var count = 0

    /// A stack that uses `storage` (uninitialized, lent for the stack's whole life) until it is full.
    package init(startingIn storage: UnsafeMutableBufferPointer<Element>) {
        base = storage.baseAddress!
        capacity = storage.count
    }

    deinit {
        // A finished parse leaves its stacks empty: no runtime call to destroy nothing.
        if count > 0 { base.deinitialize(count: count) }
        if onHeap { base.deallocate() }
    }

    @inline(__always)
    package mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    /// The top element (the stack must not be empty).
    @inline(__always)
    package var last: Element { base[count - 1] }

    /// Where the top element lies, to update it in place (the stack must not be empty).
    @inline(__always)
    package var top: UnsafeMutablePointer<Element> { base + (count - 1) }

    /// Pops the top element and hands it over (the stack must not be empty).
    @inline(__always) @discardableResult
    package mutating func removeLast() -> Element {
        count -= 1
        return (base + count).move()
    }

    private mutating func grow() {
        let newCapacity = max(16, capacity * 2)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        if onHeap { base.deallocate() }
        base = newBase
        capacity = newCapacity
        onHeap = true
    }

    /// Moves the elements from `start` to the top onto `other`, in order, and pops them.
    mutating func move(from start: Int, onto other: inout InlineStack<Element>) {
        // One block move (room made first), not an append per element: the document parse moves every node.
        let moved = count - start
        while other.capacity - other.count < moved { other.grow() }
        (other.base + other.count).moveInitialize(from: base + start, count: moved)
        other.count += moved
        count = start
    }

    /// The element at `index` (a copy; the stack keeps it).
    @inline(__always)
    subscript(index: Int) -> Element { base[index] }

    /// Pops the elements from `start` to the top.
    mutating func removeAll(from start: Int) {
        (base + start).deinitialize(count: count - start)
        count = start
    }

    /// `body` over the elements, bottom to top.
    func withElements<R>(_ body: (UnsafeBufferPointer<Element>) -> R) -> R {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Moves the elements from `start` to the top into a new array, in order, and pops them.
    mutating func moveOut(from start: Int) -> [Element] {
        let moved = count - start
        if moved == 0 { return [] }
        // `reserveCapacity` and `append` are specialized for the element type; `Array(unsafeUninitializedCapacity:)`
        // and `Array(UnsafeBufferPointer)` go through generic runtime paths that cost more than the whole move.
        var result: [Element] = []
        result.reserveCapacity(moved)
        for index in start..<count {
            result.append((base + index).move())
        }
        count = start
        return result
    }
}

/// A growable byte buffer for the writer: appends without `Array`'s uniqueness and capacity bookkeeping.
@usableFromInline
package struct ByteBuffer: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var onHeap = false
    @usableFromInline let secret: Bool
    @usableFromInline package private(set) var count = 0

    /// A buffer that writes into `storage` (lent for the buffer's whole life) until it is full. With `secret`,
    /// every byte written is wiped before the memory is left behind or the buffer dies.
    @inlinable
    package init(startingIn storage: UnsafeMutableRawBufferPointer, secret: Bool) {
        base = storage.baseAddress!.assumingMemoryBound(to: UInt8.self)
        capacity = storage.count
        self.secret = secret
    }

    deinit {
        if secret { wipe(base, count: count) }
        if onHeap { base.deallocate() }
    }

    /// Runs `body` over the bytes written so far (valid only inside it).
    @inlinable
    package func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes written as an array.
    package func array() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    @inlinable @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    @inlinable @inline(__always)
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Lets `body` write at most `maximum` bytes at the end; it returns how many it wrote.
    @inlinable @inline(__always)
    package mutating func append(maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if count + maximum > capacity { grow(to: count + maximum) }
        count += body(base + count)
    }

    @usableFromInline
    mutating func grow(to minimum: Int) {
        var newCapacity = max(256, capacity * 2)
        while newCapacity < minimum { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        if secret { wipe(base, count: count) }
        if onHeap { base.deallocate() }
        base = newBase
        capacity = newCapacity
        onHeap = true
    }
}
