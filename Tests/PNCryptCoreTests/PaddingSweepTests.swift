import Testing
import PNCryptBase
import PNCryptCore
import PNCryptTestSupport

/// What a caller who decrypts attacker bytes and reports only the outcome (success, or which error) can learn about
/// the padding: each of the 256 values of the last byte of the block before the last (which CBC XORs into the last
/// block's plaintext, its padding) is tried, in every mode (bytes, text, message) and reading (auto, the scheme
/// named), for every scheme. Unauthenticated CBC always reveals something (a success means valid padding); what
/// must not happen is a failure that tells valid padding from invalid: every failure of the sweep is the one public
/// failure. docs/security.md ("What success and failure reveal") gives these figures; each is checked exactly, value
/// for value.
@Suite struct PaddingSweepTests {
    /// Python's `json.dumps({"text": "x" * 40})`: 52 bytes, four blocks (12 bytes of padding, each 0C).
    static let plaintext = Array(#"{"text": ""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 40)
        + Array(#""}"#.utf8)
    static let padding = 16 - plaintext.count % 16

    enum Outcome: Hashable, CustomStringConvertible {
        case success([UInt8])
        case failure(PNCryptError.Code)
        var description: String {
            switch self {
            case .success(let bytes): "success (\(bytes.count) bytes)"
            case .failure(let code): "\(code)"
            }
        }
        var isSuccess: Bool { if case .success = self { true } else { false } }
    }

    /// The ciphertext of the sweep (fixed IVs: the same every run) and the offset of the byte it changes.
    static func sealed(_ scheme: Scheme) throws -> (bytes: [UInt8], position: Int) {
        let iv = scheme.row.iv == .fixed ? nil : Array("0123456789abcdef".utf8)
        let sealed = try CryptoModule(cipherKey: "padding-sweep-key").encryptBinary(plaintext, scheme: scheme, iv: iv)
        return (sealed, sealed.count - 17)
    }

    /// The outcome of each of the 256 values, for one scheme, content and reading.
    static func sweep(_ scheme: Scheme, content: KeyRing.Content, reading: ReadPolicy) throws -> [Outcome] {
        let (sealed, position) = try sealed(scheme)
        let ring = try KeyRing(["padding-sweep-key"])
        return (0...255).map { value in
            var changed = sealed
            changed[position] = UInt8(value)
            do throws(PNCryptError) {
                return .success(try ring.decrypt(changed, reading: reading, content: content).plaintext)
            } catch {
                return .failure(error.code)
            }
        }
    }

    /// What docs/security.md says each value gives: the unchanged ciphertext its plaintext; as bytes, the value that
    /// makes the last plaintext byte 01 too, the plaintext with its third block garbled (its last block short of the
    /// padding's first byte); every other value, and that one as text or a message (the garbled block is not UTF-8),
    /// the one failure.
    static func expected(_ scheme: Scheme, content: KeyRing.Content, garbled: [UInt8]) throws -> [Outcome] {
        let (sealed, position) = try sealed(scheme)
        let padded = Int(sealed[position]) ^ padding ^ 0x01
        return (0...255).map { value in
            if value == Int(sealed[position]) { return .success(plaintext) }
            if value == padded && content == .bytes {
                return .success(Array(plaintext[0..<32]) + garbled + Array(plaintext[48...])
                                + Array(repeating: UInt8(padding), count: padding - 1))
            }
            return .failure(.wrongKeyOrCorrupt)
        }
    }

    /// docs/security.md's table, written out by hand: (success, wrongKeyOrCorrupt, other) by mode, the same for
    /// every scheme and reading.
    static let documented: [KeyRing.Content: (Int, Int, Int)] = [.bytes: (2, 254, 0), .text: (1, 255, 0),
                                                                 .message: (1, 255, 0)]

    static let schemes: [Scheme] = [.acrh, .legacy, .legacyRandomIV, .legacy33]

    /// Auto for `scheme`: the rule, or for `legacy33` (which the rule never tries: its key is another hash) what
    /// a `legacy33` module reads, its own format.
    static func auto(_ scheme: Scheme) -> ReadPolicy { scheme == .legacy33 ? .headerlessAs(.legacy33) : .rule }

    @Test("every mode and reading of every scheme gives docs/security.md's figures, value for value",
          arguments: schemes)
    func documentedFigures(scheme: Scheme) throws {
        // The garbled third block, as bytes with the scheme named decrypt it (checked against its neighbours below).
        let bytes = try Self.sweep(scheme, content: .bytes, reading: .only(scheme))
        let (sealed, position) = try Self.sealed(scheme)
        guard case .success(let garbledPlaintext) = bytes[Int(sealed[position]) ^ Self.padding ^ 0x01] else {
            Issue.record("\(scheme): the value that makes the padding 01 did not decrypt: \(bytes)")
            return
        }
        let garbled = Array(garbledPlaintext[32..<min(48, garbledPlaintext.count)])
        #expect(garbled.count == 16 && garbled != Array(Self.plaintext[32..<48]))
        #expect(String(validating: garbled, as: UTF8.self) == nil, "\(scheme): the garbled block is UTF-8")
        for content in [KeyRing.Content.bytes, .text, .message] {
            let expected = try Self.expected(scheme, content: content, garbled: garbled)
            for reading in [Self.auto(scheme), .only(scheme)] {
                let outcomes = try Self.sweep(scheme, content: content, reading: reading)
                let different = (0...255).filter { outcomes[$0] != expected[$0] }
                #expect(different.isEmpty, """
                    \(scheme) \(content) \(reading): values \(different) gave \
                    \(different.prefix(3).map { outcomes[$0] }), expected \(different.prefix(3).map { expected[$0] })
                    """)
                let success = outcomes.filter(\.isSuccess).count
                let failure = outcomes.filter { $0 == .failure(.wrongKeyOrCorrupt) }.count
                let figures = (success, failure, 256 - success - failure)
                let documented = try #require(Self.documented[content])
                #expect(figures == documented, "\(scheme) \(content) \(reading): \(figures), documented \(documented)")
            }
        }
    }

    @Test("as bytes, auto answers what the scheme named answers, value for value", arguments: schemes)
    func bytesAutoAsNamed(scheme: Scheme) throws {
        let auto = try Self.sweep(scheme, content: .bytes, reading: Self.auto(scheme))
        let named = try Self.sweep(scheme, content: .bytes, reading: .only(scheme))
        let different = (0...255).filter { auto[$0] != named[$0] }
        #expect(different.isEmpty, """
            \(scheme): values \(different): auto \(different.map { auto[$0] }), named \(different.map { named[$0] })
            """)
        #expect(auto.filter(\.isSuccess).count == 2, "\(scheme): \(auto.filter(\.isSuccess))")
    }
}
