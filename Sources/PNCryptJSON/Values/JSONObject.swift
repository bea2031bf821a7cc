/// The members of a JSON object, in document order.
///
/// - Keys keep the order they were parsed or added in, and are written back in that order.
/// - Duplicate keys are kept, in document order (`{"a":1,"a":2}` writes back unchanged); looking a key up
///   returns the **last** value, as JavaScript's `JSON.parse` and Python's `json.loads` do.
/// - Equality compares the members in order: `{"a":1,"b":2}` and `{"b":2,"a":1}` differ, as their bytes do.
/// - Lookup by key is a linear scan from the end, which suits the small objects of messages.
/// - A parsed object is a view of its parsed text (one heap block for the whole document, the text and where
///   each value lies in it; in a text whose value is an array, one for each object outside every other object):
///   its members are made when read, and a nested object is a view of the same block, which stays in memory while
///   any value made from it does. The first change to an object makes its members its own.
public struct JSONObject: Hashable, Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One member: a key and its value.
    public typealias Element = (key: String, value: JSONValue)

    /// One member as stored: the key and its value side by side, so an object is one array (one allocation).
    package struct Member: Hashable, Sendable {
        package var key: String
        package var value: JSONValue
    }

    /// The members when they are this object's own; empty for a view.
    package private(set) var own: [Member]
    /// For a view: the parsed document (nil for an object with members of its own) and the object's node in it.
    /// `nonisolated(unsafe)`: a document never changes once made, but its base, the standard library's
    /// `ManagedBuffer`, cannot be `Sendable`. (`JSONValue` stays 24 bytes a value in arrays.)
    nonisolated(unsafe) package private(set) var document: JSONDocument?
    package private(set) var node: UInt32 = 0

    /// The document and node of a view; nil for an object with members of its own.
    package var view: (document: JSONDocument, node: Int)? {
        guard let document else { return nil }
        return (document, Int(node))
    }

    /// The members, in document order, duplicates included; changing them makes a view's members its own.
    package var members: [Member] {
        get {
            guard document != nil else { return own }
            return madeMembers()
        }
        _modify {
            if document != nil {
                own = madeMembers()
                document = nil
            }
            yield &own
        }
    }

    /// A view's members, each made.
    private func madeMembers() -> [Member] {
        indices.map { Member(key: key(at: $0), value: value(at: $0)) }
    }

    /// The keys, in document order, duplicates included.
    public var keys: [String] {
        guard document != nil else { return own.map(\.key) }
        return indices.map(key(at:))
    }

    /// The values, in document order; `values[i]` belongs to `keys[i]`.
    public var values: [JSONValue] {
        guard document != nil else { return own.map(\.value) }
        return indices.map(value(at:))
    }

    /// The key of the member at `position` (of a view: only the key is made).
    package func key(at position: Int) -> String {
        guard let document else { return own[position].key }
        return document.string(at: memberNode(position, in: document))
    }

    /// The value of the member at `position` (of a view: only the value is made).
    package func value(at position: Int) -> JSONValue {
        guard let document else { return own[position].value }
        return document.value(at: memberNode(position, in: document) + 1)
    }

    /// A view's node for the key of the member at `position` (its value's is the next one).
    private func memberNode(_ position: Int, in document: JSONDocument) -> Int {
        precondition(position >= 0 && position < count, "JSONObject index out of range")
        return Int(document.node(Int(node)).start) + 2 * position
    }

    /// Creates an empty object.
    public init() {
        own = []
    }

    /// Creates an object with `members` in the order given; duplicate keys are all kept.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        own = members.map { Member(key: $0.0, value: $0.1) }
    }

    /// Creates an object with the literal's members in source order; duplicate keys are all kept.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// Builds an object from parallel arrays of the same length.
    package init(keys: [String], values: [JSONValue]) {
        assert(keys.count == values.count)
        self.init(zip(keys, values))
    }

    /// Wraps members already in document order (the parser's).
    package init(members: [Member]) {
        own = members
    }

    /// A view of the object node `node` of `document`.
    package init(document: JSONDocument, node: Int) {
        own = []
        self.document = document
        self.node = UInt32(truncatingIfNeeded: node)
    }

    /// How many members.
    public var count: Int {
        guard let document else { return own.count }
        return Int(document.node(Int(node)).count)
    }

    /// Position of the first member.
    public var startIndex: Int { 0 }
    /// Position after the last member.
    public var endIndex: Int { count }

    /// The member at `position`, in document order.
    public subscript(position: Int) -> Element {
        guard let document else { return (own[position].key, own[position].value) }
        let key = memberNode(position, in: document)
        return (document.string(at: key), document.value(at: key + 1))
    }

    /// The value of the last member named `key`; setting replaces that value in place, or appends a new
    /// member when there is none; setting `nil` removes every member named `key`.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = lastIndex(ofKey: key) else { return nil }
            return value(at: index)
        }
        set {
            if let newValue {
                if let index = lastIndex(ofKey: key) {
                    members[index].value = newValue
                } else {
                    append(newValue, forKey: key)
                }
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Whether some member is named `key`.
    public func contains(key: String) -> Bool {
        lastIndex(ofKey: key) != nil
    }

    /// The position of the last member named `key`, the one lookups return.
    package func lastIndex(ofKey key: String) -> Int? {
        guard let document else { return own.lastIndex { $0.key == key } }
        let object = document.node(Int(node))
        let keyIsASCII = key.utf8.allSatisfy { $0 < 0x80 }
        for position in (0..<Int(object.count)).reversed()
        where document.isKey(key, at: Int(object.start) + 2 * position, keyIsASCII: keyIsASCII) {
            return position
        }
        return nil
    }

    /// Appends a member at the end, even if a member with this key exists (it then shadows the earlier one).
    public mutating func append(_ value: JSONValue, forKey key: String) {
        members.append(Member(key: key, value: value))
    }

    /// Removes every member named `key` and returns the value lookups returned, if any.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let last = lastIndex(ofKey: key) else { return nil }
        let removed = value(at: last)
        members.removeAll { $0.key == key }
        return removed
    }

    /// Members equal in order: keys by `String` equality, values by `JSONValue`'s. A plain loop (no closures):
    /// nested values compare recursively, a few frames a level.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.document != nil || rhs.document != nil else { return lhs.own == rhs.own }
        if let left = lhs.document, left === rhs.document && lhs.node == rhs.node {
            return true
        }
        let count = lhs.count
        guard count == rhs.count else { return false }
        for position in 0..<count {
            guard lhs.key(at: position) == rhs.key(at: position),
                  lhs.value(at: position) == rhs.value(at: position) else { return false }
        }
        return true
    }

    /// Hashes the members in order (as equality compares them).
    public func hash(into hasher: inout Hasher) {
        let count = count
        hasher.combine(count)
        for position in 0..<count {
            hasher.combine(key(at: position))
            hasher.combine(value(at: position))
        }
    }
}
