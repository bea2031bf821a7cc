// Fuzz target: JSON parsing and writing.
//
// Invariants: errors are invalidJSON or jsonTooDeep with an offset inside the input; parse -> serialize (every
// style) -> parse is the identity; serializing is idempotent; the String and byte entry points agree; a smaller
// maxDepth only ever adds jsonTooDeep.
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let parsed = attempt { () throws(PNCryptError) in try JSONValue(parsing: input) }
    if let text = String(validating: input, as: UTF8.self) {
        let fromString = attempt { () throws(PNCryptError) in try JSONValue(parsing: text) }
        switch (parsed, fromString) {
        case (.success(let a), .success(let b)): guard a == b else { fail("String parse differs", input) }
        case (.failure(let a), .failure(let b)): guard a == b else { fail("String parse error differs", input) }
        default: fail("String parse outcome differs", input)
        }
    }
    let shallow = attempt { () throws(PNCryptError) in try JSONValue(parsing: input, maxDepth: 3) }
    switch parsed {
    case .failure(let error):
        check(error, allowed: [.invalidJSON, .jsonTooDeep], inputCount: input.count, input, context: "parse")
        if case .failure(let e) = shallow, e.code == .invalidJSON, error.code == .invalidJSON, e != error {
            // Both saw the same syntax error unless the shallow parse stopped earlier at depth.
            fail("maxDepth changed a syntax error: \(e) vs \(error)", input)
        }
        if case .success = shallow { fail("maxDepth 3 parsed what the default refused", input) }
    case .success(let value):
        if case .failure(let e) = shallow, e.code != .jsonTooDeep { fail("maxDepth 3 gave \(e)", input) }
        // The SDK styles rewrite some values as their SDKs do; their output is JSON except PHP's raw string form.
        for style in JSONStyle.allCases where !style.isExact {
            let text = value.serialized(style: style)
            if style == .php, case .string = value { continue }
            guard (try? JSONValue(parsing: text)) != nil else { fail("\(style) output does not parse", input) }
        }
        for style in JSONStyle.allCases where style.isExact {
            let text = value.serialized(style: style)
            guard let again = try? JSONValue(parsing: text) else { fail("\(style) output does not parse", input) }
            guard again == value else { fail("parse(serialize(\(style))) != value", input) }
            guard again.serialized(style: style) == text else { fail("\(style) not idempotent", input) }
        }
        _ = value.hashValue
        _ = value.description
    }
    return 0
}
