// The storage of a JSON object's members: one heap block holding a count, a capacity and the members, copied on
// write like an `Array`, but created and freed by code specialized for `JSONObject.Member`. An `Array`'s block is
// freed by the runtime's generic code (one value-witness call per element) and created through its generic growth
// path; for the small objects of messages those cost about as much as the members themselves.
//
// Ownership: the block belongs to the `MemberList` values that share it; a mutation first makes it unique
// (`makeUnique`), so a shared block is never written. The block's `deinit` destroys the members it holds.

/// The members of one object, in order (see the file comment).
package struct MemberList: RandomAccessCollection, Hashable, @unchecked Sendable {
    package typealias Member = JSONObject.Member

    /// A block's count and capacity (the members it has room for: the capacity it was made with).
    struct Header {
        var count: Int
        let capacity: Int
    }

    /// One heap block of members.
    final class Storage: ManagedBuffer<Header, Member> {
        deinit {
            _ = withUnsafeMutablePointers { header, members in members.deinitialize(count: header.pointee.count) }
        }

        /// A block with room for `capacity` members, none there yet.
        static func make(capacity: Int) -> Storage {
            unsafeDowncast(create(minimumCapacity: capacity) { _ in Header(count: 0, capacity: capacity) },
                           to: Storage.self)
        }
    }

    /// nil for no members: an empty object allocates nothing.
    private var storage: Storage?

    /// No members.
    package init() {}

    /// The members of `members`, in order.
    package init(_ members: some Sequence<Member>) {
        for member in members { append(member) }
    }

    /// Takes the `count` members at `source` (moved out: the memory is left uninitialized).
    package init(moving source: UnsafeMutablePointer<Member>, count: Int) {
        guard count > 0 else { return }
        let storage = Storage.make(capacity: count)
        storage.withUnsafeMutablePointers { header, members in
            members.moveInitialize(from: source, count: count)
            header.pointee.count = count
        }
        self.storage = storage
    }

    package var startIndex: Int { 0 }
    @inline(__always)
    package var endIndex: Int { storage?.header.count ?? 0 }

    @inline(__always)
    package subscript(position: Int) -> Member {
        get {
            precondition(position >= 0 && position < endIndex, "member index out of range")
            return storage.unsafelyUnwrapped.withUnsafeMutablePointerToElements { $0[position] }
        }
        set {
            precondition(position >= 0 && position < endIndex, "member index out of range")
            makeUnique(capacity: endIndex)
            storage.unsafelyUnwrapped.withUnsafeMutablePointerToElements { $0[position] = newValue }
        }
    }

    /// Adds `member` at the end (the block doubles when full).
    package mutating func append(_ member: Member) {
        let count = endIndex
        let capacity = storage?.header.capacity ?? 0
        makeUnique(capacity: count < capacity ? capacity : Swift.max(4, 2 * count))
        storage.unsafelyUnwrapped.withUnsafeMutablePointers { header, members in
            (members + count).initialize(to: member)
            header.pointee.count = count + 1
        }
    }

    /// Removes every member for which `shouldBeRemoved` is true, keeping the order of the rest.
    package mutating func removeAll(where shouldBeRemoved: (Member) throws -> Bool) rethrows {
        let kept = try filter { try !shouldBeRemoved($0) }
        if kept.count != count { self = MemberList(kept) }
    }

    /// Runs `body` over the members as contiguous memory.
    @inline(__always)
    package func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Member>) throws -> R) rethrows -> R {
        guard let storage else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try storage.withUnsafeMutablePointers { header, members in
            try body(UnsafeBufferPointer(start: members, count: header.pointee.count))
        }
    }

    /// The members' memory, for a reader that holds this list (or the value it is in) unchanged for as long as it
    /// reads them: no retain is made (the JSON writer's walk, which borrows the whole tree).
    @inline(__always)
    package var unsafeMembers: UnsafeBufferPointer<Member> {
        guard let storage else { return UnsafeBufferPointer(start: nil, count: 0) }
        return storage.withUnsafeMutablePointers { header, members in
            UnsafeBufferPointer(start: members, count: header.pointee.count)
        }
    }

    /// Makes the block this value's own with room for `capacity` members (at least the count): a shared block is
    /// copied, a block of this value's own that is too small is moved from.
    private mutating func makeUnique(capacity: Int) {
        let count = endIndex
        if isKnownUniquelyReferenced(&storage) {
            let old = storage.unsafelyUnwrapped
            if old.header.capacity >= capacity { return }
            let new = Storage.make(capacity: capacity)
            new.withUnsafeMutablePointerToElements { to in
                old.withUnsafeMutablePointers { header, from in
                    to.moveInitialize(from: from, count: count)
                    header.pointee.count = 0
                }
            }
            new.header.count = count
            storage = new
            return
        }
        let new = Storage.make(capacity: Swift.max(capacity, count))
        if let old = storage {
            new.withUnsafeMutablePointerToElements { to in
                old.withUnsafeMutablePointerToElements { from in to.initialize(from: from, count: count) }
            }
        }
        new.header.count = count
        storage = new
    }

    package static func == (a: MemberList, b: MemberList) -> Bool {
        a.storage === b.storage || a.elementsEqual(b)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for member in self { hasher.combine(member) }
    }
}
