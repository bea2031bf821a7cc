// `pncrypt conformance --peer CMD` (docs/conformance.md): what the peer says of itself.

import PNCrypt

/// What the peer said of itself (`hello`).
public struct ConformancePeerInfo: Sendable {
    /// The SDK's name.
    public var name: String
    /// The SDK's version.
    public var version: String
    /// The ops it supports; nil when it did not say (all are tried).
    public var ops: [String]?
    /// The schemes it supports; nil when it did not say (all are tried).
    public var schemes: [String]?
    /// The publish style it claims (a `--style` name), when it names one.
    public var style: String?
    /// The differences from pncrypt the adapter declares: check id patterns (`*` matches any run of characters)
    /// and the reason for each.
    public var differences: [(pattern: String, reason: String)]

    /// The reason declared for check `id`, if one of the patterns matches it.
    public func declaredDifference(_ id: String) -> String? {
        differences.first { Self.matches(id, $0.pattern) }?.reason
    }

    /// Whether `id` matches `pattern`, in which `*` stands for any run of characters. Compared as Unicode scalars,
    /// not as Swift characters: a `*` followed by a combining mark is still a `*`, and spellings that Unicode calls
    /// equivalent are different ids.
    static func matches(_ id: String, _ pattern: String) -> Bool {
        let parts = Array(pattern.unicodeScalars).split(separator: "*", omittingEmptySubsequences: false)
        var rest = Array(id.unicodeScalars)[...]
        for (index, part) in parts.enumerated() {
            if index == 0 {
                guard rest.starts(with: part) else { return false }
                rest = rest.dropFirst(part.count)
            } else if index == parts.count - 1 {
                return rest.count >= part.count && rest.suffix(part.count).elementsEqual(part)
            } else {
                guard let found = rest.firstRange(of: part) else { return false }
                rest = rest[found.upperBound...]
            }
        }
        return rest.isEmpty
    }
}
