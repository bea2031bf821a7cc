import Testing
import PNCryptBase
import PNCryptCore
import PNCryptTestSupport

/// What a caller who decrypts attacker bytes and reports only the outcome (success, or which error) can learn about
/// the padding: each of the 256 values of the last byte of the block before the last (which CBC XORs into the last
/// block's plaintext, its padding) is tried, in every mode (bytes, text, message) and reading (auto, the scheme
/// named), for every scheme. Unauthenticated CBC always reveals something (a success means valid padding); what
/// must not happen is a failure that tells valid padding from invalid: every failure of the sweep is the one public
/// failure. docs/security.md ("What success and failure reveal") gives these figures.
@Suite struct PaddingSweepTests {
    /// Python's `json.dumps({"text": "x" * 40})`: four blocks.
    static let plaintext = Array(#"{"text": ""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 40)
        + Array(#""}"#.utf8)

    enum Outcome: Hashable, CustomStringConvertible {
        case success
        case failure(PNCryptError.Code)
        var description: String {
            switch self {
            case .success: "success"
            case .failure(let code): "\(code)"
            }
        }
    }

    /// The outcomes of the sweep, counted, for one scheme, content and reading.
    static func sweep(_ scheme: Scheme, content: KeyRing.Content, reading: ReadPolicy) throws -> [Outcome: Int] {
        let key = "padding-sweep-key"
        let module = try CryptoModule(cipherKey: key)
        let sealed = try module.encryptBinary(plaintext, scheme: scheme, iv: scheme.row.iv == .fixed ? nil
                                              : Array("0123456789abcdef".utf8))
        let ring = try KeyRing([key])
        let position = sealed.count - 17
        var outcomes: [Outcome: Int] = [:]
        for value in 0...255 {
            var changed = sealed
            changed[position] = UInt8(value)
            do {
                _ = try ring.decrypt(changed, reading: reading, content: content)
                outcomes[.success, default: 0] += 1
            } catch {
                outcomes[.failure(error.code), default: 0] += 1
            }
        }
        return outcomes
    }

    static let schemes: [Scheme] = [.acrh, .legacy, .legacyRandomIV, .legacy33]

    @Test("every failure of the padding sweep is the one public failure, in every mode and reading",
          arguments: schemes)
    func oneFailure(scheme: Scheme) throws {
        for content in [KeyRing.Content.bytes, .text, .json] {
            for reading in [ReadPolicy.rule, .only(scheme)] where scheme != .legacy33 || reading != .rule {
                let outcomes = try Self.sweep(scheme, content: content, reading: reading)
                let codes = Set(outcomes.keys)
                #expect(codes.isSubset(of: [.success, .failure(.wrongKeyOrCorrupt)]),
                        "\(scheme) \(content) \(reading): \(outcomes)")
                // The unchanged ciphertext is among the 256: it decrypts.
                #expect(outcomes[.success, default: 0] >= 1, "\(scheme) \(content) \(reading): \(outcomes)")
            }
        }
    }

    @Test("as bytes, auto answers what the scheme named answers, value for value", arguments: schemes)
    func bytesAutoAsNamed(scheme: Scheme) throws {
        guard scheme != .legacy33 else { return }
        let auto = try Self.sweep(scheme, content: .bytes, reading: .rule)
        let named = try Self.sweep(scheme, content: .bytes, reading: .only(scheme))
        #expect(auto == named, "\(scheme): auto \(auto), named \(named)")
        // Valid padding once the last byte is 01 (or the two last 02 02, ...): one or two of 256.
        #expect((1...2).contains(auto[.success, default: 0]), "\(scheme): \(auto)")
    }

    @Test("as text and as a message, the garbled block before the last fails UTF-8: only the right value succeeds",
          arguments: schemes)
    func textHidesPadding(scheme: Scheme) throws {
        for content in [KeyRing.Content.text, .json] {
            let reading: ReadPolicy = scheme == .legacy33 ? .only(.legacy33) : .rule
            let outcomes = try Self.sweep(scheme, content: content, reading: reading)
            #expect(outcomes[.success, default: 0] == 1, "\(scheme) \(content): \(outcomes)")
        }
    }
}
