import PNCryptBase

/// How a reader reads data (docs/formats.md section 1): which formats it accepts and the one rule for data without
/// a `PNED` header. Every reader takes one: `CryptoModule`, `KeyRing`, `StreamDecryptor`, `MessageCrypto`,
/// `MessageRekey`.
///
/// ```swift
/// let ring = try KeyRing(["enigma"])
/// _ = try ring.decrypt(data)                                   // .rule: a header, else the headerless rule
/// _ = try ring.decrypt(data, reading: .headerlessAs(.legacy))   // a client set to the fixed IV
/// _ = try ring.decrypt(data, reading: .only(.acrh))             // the header is required
/// _ = try ring.decrypt(data, reading: try ReadPolicy(naming: "auto,legacy33"))  // both, one must qualify
/// ```
public enum ReadPolicy: Hashable, Sendable {
    /// A `PNED` header picks the cryptor; data without one is read both legacy ways (`legacy` and
    /// `legacyRandomIV`) and the headerless rule decides. The default.
    case rule
    /// A `PNED` header picks the cryptor; data without one is read as this scheme only (a client's legacy cryptor
    /// setting: `legacy`, `legacyRandomIV` or `legacy33`). `headerlessAs(.acrh)` has no headerless reading: data
    /// without a header is refused (`unknownCryptor`; `malformedHeader` when empty or a header cut short), as by a
    /// client with no legacy cryptor.
    case headerlessAs(Scheme)
    /// Exactly this scheme: `acrh` requires the header; the others never look for one.
    case only(Scheme)
    /// Several readings tried together (`--scheme auto,legacy33`): every reading each item allows, and the one
    /// decision over all of them: exactly one (key, scheme) reading must qualify (`Decision`). Made by
    /// `init(naming:legacyScheme:)`, which refuses lists that name a reading twice.
    case anyOf(ReadList)

    /// The policy two settings name, the one mapping every shell uses (the CLI's `--scheme`/`--legacy-scheme`, the
    /// C library's `scheme` argument beside its module's legacy cryptor, the vector files' `scheme` and
    /// `legacy_scheme`): a `scheme` (not `auto`) reads only that scheme, a `legacyScheme` beside it ignored; else a
    /// `legacyScheme` is how headerless data is read; neither is the rule.
    package init(scheme: Scheme?, legacyScheme: Scheme?) {
        if let scheme {
            self = .only(scheme)
        } else if let legacyScheme {
            self = .headerlessAs(legacyScheme)
        } else {
            self = .rule
        }
    }

    /// The policy a scheme name or a comma-separated list of them names (`auto`, `legacy33`, `auto,legacy33`),
    /// with how `auto` reads headerless data (`legacyScheme`, the CLI's `--legacy-scheme`): the one parser of the
    /// shells' reading names (the CLI's `--scheme` for reading, the C library's `scheme` argument, Python's and
    /// Spark's `scheme`). One name maps as `init(scheme:legacyScheme:)` does; a list is `anyOf`.
    /// - Throws: `invalidValue`, one line saying what to change: an unknown name, an empty item, a name given
    ///   twice, beside `auto` a scheme `auto` already reads, `legacyScheme` in a list without `auto`.
    public init(naming text: String, legacyScheme: Scheme? = nil) throws(PNCryptError) {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var auto = false
        var schemes: [Scheme] = []
        for item in items {
            if item == ReadList.autoName {
                guard !auto else { throw ReadList.invalid("names auto twice") }
                auto = true
            } else if let scheme = Scheme(rawValue: item) {
                guard !schemes.contains(scheme) else { throw ReadList.invalid("names \(scheme) twice") }
                schemes.append(scheme)
            } else {
                let known = ([ReadList.autoName] + Scheme.allCases.map(\.rawValue)).joined(separator: ", ")
                throw ReadList.invalid(item.isEmpty ? "has an empty item" : "names '\(item)', not a scheme",
                                       hint: "use \(known), or several joined by commas (auto,legacy33)")
            }
        }
        if items.count == 1 {
            self.init(scheme: schemes.first, legacyScheme: legacyScheme)
            return
        }
        if let read = schemes.first(where: { auto && ReadList.autoReads($0) }) {
            throw ReadList.invalid("names \(read) beside auto, which already reads it",
                                   hint: "beside auto name only schemes auto does not read, as in auto,legacy33")
        }
        if legacyScheme != nil && !auto {
            throw ReadList.invalid("has no auto for --legacy-scheme to apply to",
                                   hint: "add auto to the list or drop --legacy-scheme")
        }
        self = .anyOf(ReadList(auto: auto, legacyScheme: legacyScheme, schemes: schemes))
    }

    /// The list of readings (`anyOf`), else nil.
    package var list: ReadList? { if case .anyOf(let list) = self { list } else { nil } }

    /// The scheme read alone (`only`), else nil: a header is read when there is one.
    package var scheme: Scheme? { if case .only(let scheme) = self { scheme } else { nil } }

    /// How data without a header is read when `scheme` is nil (`headerlessAs`); nil: the headerless rule.
    package var legacyScheme: Scheme? { if case .headerlessAs(let scheme) = self { scheme } else { nil } }
}

/// Several readings tried together (`ReadPolicy.anyOf`, `--scheme auto,legacy33`): `auto` (a `PNED` header, else
/// headerless data as `legacyScheme` says or by the headerless rule) and each of `schemes` read alone (`.only`).
/// The readings of all of them are decided together: a plaintext is delivered only when exactly one (key, scheme)
/// reading qualifies, whichever item allowed it; an item whose format the data does not have (a length that is
/// not whole blocks for it, no header for `acrh`) adds no reading. Plain values: no allocation.
public struct ReadList: Hashable, Sendable, CustomStringConvertible {
    /// `auto` is one of the items.
    public let auto: Bool
    /// How `auto` reads headerless data: as this scheme, or by the headerless rule when nil.
    public let legacyScheme: Scheme?
    /// The schemes read alone, one bit each (`Scheme.allCases` order).
    private let mask: UInt8

    /// The name of the `auto` item.
    static let autoName = "auto"

    init(auto: Bool, legacyScheme: Scheme?, schemes: [Scheme]) {
        self.auto = auto
        self.legacyScheme = auto ? legacyScheme : nil
        var mask: UInt8 = 0
        for scheme in schemes { mask |= Self.bit(scheme) }
        self.mask = mask
    }

    private static func bit(_ scheme: Scheme) -> UInt8 { 1 << UInt8(Scheme.allCases.firstIndex(of: scheme)!) }

    /// The schemes read alone, in the scheme table's order.
    public var schemes: [Scheme] { Scheme.allCases.filter { mask & Self.bit($0) != 0 } }

    /// The policy of each item: `auto`'s (`.rule` or `.headerlessAs`) first, then `.only` each scheme.
    package var policies: [ReadPolicy] {
        (auto ? [ReadPolicy(scheme: nil, legacyScheme: legacyScheme)] : []) + schemes.map { .only($0) }
    }

    /// The scheme of string-leaf messages (`legacy33`) among the items, else nil: an array or object message is
    /// read as one.
    package var leafScheme: Scheme? { schemes.first { $0.row.message == .stringLeaves } }

    /// The list as named: `auto,legacy33`.
    public var description: String {
        ((auto ? [Self.autoName] : []) + schemes.map(\.rawValue)).joined(separator: ",")
    }

    /// Whether `auto` reads `scheme` whatever its legacy scheme: the header's, and the legacy cryptors' (the
    /// headerless rule's pair, or the one `--legacy-scheme` names; naming the other beside it would make the
    /// rule's pair by another way).
    static func autoReads(_ scheme: Scheme) -> Bool { scheme.hasHeader || scheme.isLegacyCryptor }

    /// The error for a list that cannot be read: one line, what to change.
    static func invalid(_ what: String, hint: String? = nil) -> PNCryptError {
        PNCryptError(.invalidValue, "the list of schemes \(what): "
                     + (hint ?? "name each of auto and the schemes once, joined by commas (auto,legacy33)"))
    }
}
