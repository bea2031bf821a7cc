import Foundation
import Testing
import CPNCryptHeader
@testable import CPNCrypt
import PNCryptBase
import PNCryptCore
import PNCryptTestSupport
import PNCryptCLITestSupport

/// One rule maps the shells' settings to the library's one `ReadPolicy` (`ReadPolicy(scheme:legacyScheme:)`): the
/// CLI's `--scheme`/`--legacy-scheme` and the C library's `scheme` argument read the same ciphertexts as the library
/// does with the policy the mapping gives, to the same plaintext or the same failure.
@Suite struct ReadPolicyShellTests {
    static let key = "enigma"
    /// Text of three blocks: as bytes, its headerless ciphertexts pass both legacy readings' padding.
    static let text = Array("Temperature is 42, humidity 80%, wind from the west".utf8)

    /// The ciphertexts: one per scheme with a file format, with fixed IVs (reproducible).
    static func ciphertexts() throws -> [(Scheme, [UInt8])] {
        let module = try CryptoModule(cipherKey: key)
        let iv = Array("fedcba9876543210".utf8)
        return try [Scheme.legacy, .legacyRandomIV, .acrh].map { scheme in
            (scheme, try module.encryptBinary(text, scheme: scheme, iv: scheme.row.iv == .fixed ? nil : iv))
        }
    }

    /// The settings of a reader: `--scheme` (nil: auto) and `--legacy-scheme`.
    static let settings: [(scheme: Scheme?, legacy: Scheme?)] = [
        (nil, nil), (nil, .legacy), (nil, .legacyRandomIV), (.legacy, nil), (.legacyRandomIV, nil), (.acrh, nil),
    ]

    @Test("the mapping: a scheme is .only (a legacy scheme beside it ignored), else .headerlessAs, else .rule")
    func mapping() {
        let all: [Scheme?] = [nil] + Scheme.allCases
        for scheme in all {
            for legacy in all {
                let policy = ReadPolicy(scheme: scheme, legacyScheme: legacy)
                let expected: ReadPolicy = if let scheme { .only(scheme) } else if let legacy { .headerlessAs(legacy) }
                    else { .rule }
                #expect(policy == expected, "\(String(describing: scheme)) \(String(describing: legacy))")
                #expect(policy.scheme == scheme && policy.legacyScheme == (scheme == nil ? legacy : nil))
            }
        }
    }

    @Test("the CLI's --scheme/--legacy-scheme and the library's ReadPolicy give the same result on every ciphertext")
    func cliReadsAsTheLibrary() throws {
        let ring = try KeyRing([Self.key])
        for (written, sealed) in try Self.ciphertexts() {
            for setting in Self.settings {
                let policy = ReadPolicy(scheme: setting.scheme, legacyScheme: setting.legacy)
                let library = Result { () throws(PNCryptError) in
                    try ring.decrypt(sealed, reading: policy, content: .text).plaintext
                }
                var arguments = ["decrypt", "--key", Self.key, Base64.encode(sealed),
                                 "--scheme", setting.scheme?.rawValue ?? "auto"]
                if let legacy = setting.legacy { arguments += ["--legacy-scheme", legacy.rawValue] }
                let cli = try CLI.run(arguments)
                let label = "\(written) read with \(policy)"
                switch library {
                case .success(let plaintext):
                    #expect(cli.status == 0 && cli.stdout == plaintext, "\(label): \(cli.stderr)")
                case .failure(let error):
                    #expect(cli.status != 0 && cli.stdout.isEmpty, "\(label): the library failed (\(error))")
                }
            }
        }
        // What each policy reads, as text (the rule tells text's two legacy readings apart).
        let (_, random) = try Self.ciphertexts()[1]
        #expect(try ring.decrypt(random, reading: .rule, content: .text).plaintext == Self.text)
        let told = try ring.decrypt(random, reading: .headerlessAs(.legacyRandomIV), content: .text)
        #expect(told.plaintext == Self.text)
        #expect(throws: PNCryptError.self) { try ring.decrypt(random, reading: .only(.acrh), content: .text) }
    }

    @Test("the C library's scheme argument and the library's ReadPolicy give the same result on every ciphertext")
    func cReadsAsTheLibrary() throws {
        let ring = try KeyRing([Self.key])
        var module: OpaquePointer?
        var error = pncrypt_error()
        #expect(CPNCrypt.pncrypt_module_new(Self.key, "acrh", &module, &error) == 0)
        defer { CPNCrypt.pncrypt_module_free(module) }
        for (written, sealed) in try Self.ciphertexts() {
            // The C library has no legacy setting of its own: an acrh module's `auto` is the rule.
            for setting in Self.settings where setting.legacy == nil {
                let policy = ReadPolicy(scheme: setting.scheme, legacyScheme: nil)
                let library = Result { () throws(PNCryptError) in
                    try ring.decrypt(sealed, reading: policy, content: .text).plaintext
                }
                let base64 = Base64.encode(sealed)
                var out: UnsafeMutablePointer<UInt8>?
                var count = 0
                let name = setting.scheme?.rawValue ?? "auto"
                let code = CPNCrypt.pncrypt_decrypt_text(module, name, base64, base64.utf8.count, &out, &count, &error)
                let plaintext = out.map { Array(UnsafeBufferPointer(start: $0, count: count)) }
                CPNCrypt.pncrypt_free(out)
                let label = "\(written) read with \(policy)"
                switch library {
                case .success(let expected):
                    #expect(code == 0 && plaintext == expected, "\(label): C code \(code)")
                case .failure(let failure):
                    #expect(code == ErrorCodes.code(for: failure), "\(label): \(failure)")
                }
            }
        }
    }
}
