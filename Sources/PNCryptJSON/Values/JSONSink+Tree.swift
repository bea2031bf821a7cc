// The grammar loop's sink that makes values (`JSONValue`): what `JSONValue(parsing:)` gives for a text that is not
// parsed as a document (JSONSink+Nodes.swift), and the tests' reference for documents.

import PNCryptBase

/// Makes the text's value: finished elements of open arrays wait on `values`, the members of open objects on
/// `members` (a key is pushed with a `null` value when read, and its value stored over that when finished); a
/// container that closes moves its slice into a new array.
struct TreeSink: JSONSink, ~Copyable {
    private var values: InlineStack<JSONValue>
    private var members: InlineStack<JSONObject.Member>

    /// A sink whose stacks start in `values` and `members` (lent for the sink's whole life).
    init(values: UnsafeMutableBufferPointer<JSONValue>, members: UnsafeMutableBufferPointer<JSONObject.Member>) {
        self.values = InlineStack(startingIn: values)
        self.members = InlineStack(startingIn: members)
    }

    @inline(__always)
    mutating func string(_ parser: inout JSONParser) throws(PNCryptError) -> JSONValue {
        if let short = parser.shortASCIIString() { return .string(short) }
        return .string(try parser.parseString())
    }

    @inline(__always)
    mutating func key(_ parser: inout JSONParser) throws(PNCryptError) {
        let key: String
        if let short = parser.shortASCIIString() {
            key = short
        } else {
            key = try parser.parseString()
        }
        members.append(JSONObject.Member(key: key, value: .null))
    }

    @inline(__always)
    mutating func keySeparator() {}

    @inline(__always)
    mutating func number(_ parser: inout JSONParser) throws(PNCryptError) -> JSONValue {
        .number(try parser.parseNumber())
    }

    @inline(__always)
    mutating func literal(_ value: Bool?, _ parser: inout JSONParser) -> JSONValue {
        guard let value else { return .null }
        return .bool(value)
    }

    @inline(__always)
    mutating func willOpen(isObject: Bool, depth: Int, _ parser: inout JSONParser) {}

    @inline(__always)
    mutating func empty(isObject: Bool, _ parser: inout JSONParser) -> JSONValue {
        isObject ? .object(JSONObject()) : .array([])
    }

    @inline(__always)
    mutating func open(isObject: Bool, depth: Int) -> Int {
        isObject ? members.count : values.count
    }

    @inline(__always)
    mutating func element(_ value: consuming JSONValue, isObject: Bool) {
        if isObject {
            members.top.pointee.value = consume value
        } else {
            values.append(consume value)
        }
    }

    @inline(__always)
    mutating func close(_ value: consuming JSONValue, isObject: Bool, mark: Int, depth: Int,
                        _ parser: inout JSONParser) -> JSONValue {
        if isObject {
            members.top.pointee.value = consume value
            return .object(JSONObject(members: members.moveOut(from: mark)))
        }
        values.append(consume value)
        return .array(values.moveOut(from: mark))
    }
}
