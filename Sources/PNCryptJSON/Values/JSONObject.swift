/// The members of a JSON object, in document order.
///
/// - Keys keep the order they were parsed or added in, and are written back in that order.
/// - Duplicate keys are kept, in document order (`{"a":1,"a":2}` writes back unchanged); looking a key up
///   returns the **last** value, as JavaScript's `JSON.parse` and Python's `json.loads` do.
/// - Equality compares the members in order: `{"a":1,"b":2}` and `{"b":2,"a":1}` differ, as their bytes do.
/// - Lookup by key is a linear scan from the end, which suits the small objects of messages.
public struct JSONObject: Hashable, Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One member: a key and its value.
    public typealias Element = (key: String, value: JSONValue)

    /// One member as stored: the key and its value side by side, so an object is one array (one allocation).
    package struct Member: Hashable, Sendable {
        package var key: String
        package var value: JSONValue
    }

    /// The members, in document order, duplicates included.
    package var members: [Member]

    /// The keys, in document order, duplicates included.
    public var keys: [String] { members.map(\.key) }
    /// The values, in document order; `values[i]` belongs to `keys[i]`.
    public var values: [JSONValue] { members.map(\.value) }

    /// Creates an empty object.
    public init() {
        members = []
    }

    /// Creates an object with `members` in the order given; duplicate keys are all kept.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        self.members = members.map { Member(key: $0.0, value: $0.1) }
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
        self.members = members
    }

    /// Position of the first member.
    public var startIndex: Int { 0 }
    /// Position after the last member.
    public var endIndex: Int { members.count }

    /// The member at `position`, in document order.
    public subscript(position: Int) -> Element {
        (members[position].key, members[position].value)
    }

    /// The value of the last member named `key`; setting replaces that value in place, or appends a new
    /// member when there is none; setting `nil` removes every member named `key`.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = lastIndex(ofKey: key) else { return nil }
            return members[index].value
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
        members.lastIndex { $0.key == key }
    }

    /// Appends a member at the end, even if a member with this key exists (it then shadows the earlier one).
    public mutating func append(_ value: JSONValue, forKey key: String) {
        members.append(Member(key: key, value: value))
    }

    /// Removes every member named `key` and returns the value lookups returned, if any.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let last = lastIndex(ofKey: key) else { return nil }
        let removed = members[last].value
        members.removeAll { $0.key == key }
        return removed
    }
}
