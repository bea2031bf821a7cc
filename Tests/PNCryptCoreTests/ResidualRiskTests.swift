import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport

/// docs/security.md's residual-risk table states how many of 10,000 wrong keys get a
/// plaintext back, per mode and readings, as `scripts/checks/residual_risk.py` measured them through C and Python. The
/// rows whose ciphertext has a fixed IV are certain (the same keys, the same ciphertext every run): the Swift
/// library must give exactly the table's figures, so the table stays true when the decision procedure changes.
@Suite struct ResidualRiskTests {
    static let key = "residual-risk-key"
    static let oneBlock = Array(#""hi""#.utf8)
    /// Python's `json.dumps({"text": "x" * 30})`: three blocks.
    static let threeBlocks = Array(#"{"text": ""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 30)
        + Array(#""}"#.utf8)

    /// The table's cells for the row whose first cell is `name`: the leading number of each cell after the
    /// readings (bytes, text, message).
    static func documented(_ name: String) throws -> [Int?] {
        let text = try String(contentsOf: Package.root.appendingPathComponent("docs/security.md"), encoding: .utf8)
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| \(name) |") },
                               "docs/security.md has no residual-risk row \(name)")
        let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        return cells.dropFirst(2).map { Int($0.prefix { $0.isNumber }) }
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var plaintext: [UInt8]
        var scheme: Scheme
        /// The scheme of the reading (nil: auto) and of headerless data with auto.
        var read: Scheme?
        var legacy: Scheme?
        /// A list of readings (`auto,legacy33`) read instead of `read` and `legacy`.
        var list: String? = nil
        /// How many readings pass or fail their padding on their own (the two legacy IVs share their last block).
        var independent = 1
        var description: String { name }
        /// The two (or the list) as the one `ReadPolicy`.
        var policy: ReadPolicy {
            guard let list else { return ReadPolicy(scheme: read, legacyScheme: legacy) }
            return try! ReadPolicy(naming: list)
        }
    }

    static let rows: [Row] = [
        Row(name: "`legacy`, 1 block, `auto`", plaintext: oneBlock, scheme: .legacy, read: nil, legacy: .legacy),
        Row(name: "`legacy`, 3 blocks, scheme `legacy`", plaintext: threeBlocks, scheme: .legacy, read: .legacy,
            legacy: nil),
        // Both legacy IVs: as bytes the rule takes one reading, so a wrong key's pass is what the named scheme's is.
        Row(name: "`legacy`, 3 blocks, `auto` (both legacy IVs)", plaintext: threeBlocks, scheme: .legacy, read: nil,
            legacy: nil),
        Row(name: "`legacy33` module, 1 block", plaintext: oneBlock, scheme: .legacy33, read: nil, legacy: .legacy33),
        Row(name: "`legacy33` module, 3 blocks", plaintext: threeBlocks, scheme: .legacy33, read: nil,
            legacy: .legacy33),
        // Lists of readings: legacy and legacy33 (1 block); both legacy IVs and legacy33 (3 blocks).
        Row(name: "`legacy33`, 1 block, `auto,legacy33`", plaintext: oneBlock, scheme: .legacy33, list: "auto,legacy33",
            independent: 2),
        Row(name: "`legacy`, 3 blocks, `auto,legacy33`", plaintext: threeBlocks, scheme: .legacy, list: "auto,legacy33",
            independent: 2),
    ]

    @Test("10,000 wrong keys give the table's figures, as bytes and as text",
          .tags(.slow), .notInQuickRun, arguments: rows)
    func wrongKeys(row: Row) throws {
        let sealed = try CryptoModule(cipherKey: Self.key).encryptBinary(row.plaintext, scheme: row.scheme)
        var delivered = (bytes: 0, text: 0)
        for k in 0..<10_000 {
            let ring = try KeyRing(["wrong-key-\(k)"])
            if (try? ring.decrypt(sealed, reading: row.policy, content: .bytes)) != nil {
                delivered.bytes += 1
            }
            if (try? ring.decrypt(sealed, reading: row.policy, content: .text)) != nil {
                delivered.text += 1
            }
        }
        let cells = try Self.documented(row.name)
        #expect(cells.count == 3, "\(cells)")
        #expect(cells.first == delivered.bytes, "bytes: measured \(delivered.bytes), documented \(cells)")
        #expect(cells.dropFirst().first == delivered.text, "text: measured \(delivered.text), documented \(cells)")
        // About 1 in 255 as bytes per independent reading (39 expected each; a binomial spread), none as text.
        #expect((20 * row.independent...60 * row.independent).contains(delivered.bytes))
    }
}
