import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase
import Synchronization

@Suite struct RandomIVTests {
    @Test("random IVs never repeat, across reserve refills and concurrent tasks", arguments: [Scheme.acrh,
        .legacyRandomIV])
    func unique(scheme: Scheme) async throws {
        let module = try CryptoModule(cipherKey: "iv-test", scheme: scheme)
        let offset = scheme == .acrh ? 10 : 0
        let ivs = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try (0..<2000).map { _ in Array(try module.encryptBinary([UInt8]("m"))[offset..<offset + 16]) }
                }
            }
            return try await group.reduce(into: [[UInt8]]()) { $0 += $1 }
        }
        #expect(ivs.count == 16_000)
        #expect(Set(ivs).count == ivs.count)
        #expect(!ivs.contains([UInt8](repeating: 0, count: 16)))
    }

    /// The reserve of random IV bytes an encrypting context draws ahead (docs/security.md: "the reserve is wiped
    /// when the context is freed"): `Wiping.observer` sees each wipe, with the bytes right after it.
    @Test("a context's IV reserve is wiped when the context is freed", arguments: [true, false])
    func reserveWipedOnFree(aes256: Bool) throws {
        let key = SecretBytes([UInt8](repeating: 7, count: aes256 ? 32 : 16))
        let wiped = Mutex<[(count: Int, zero: Bool)]>([])
        var context: Backend.Context? = Backend.makeContext(aes256: aes256, key: key, encrypting: true)
        var iv = [UInt8](repeating: 0, count: 16)
        let drawn = Wiping.$observer.withValue({ buffer in
            wiped.withLock { $0.append((buffer.count, buffer.allSatisfy { $0 == 0 })) }
        }) { () -> Bool in
            let drawn = iv.withUnsafeMutableBytes { context!.randomIV(into: $0.baseAddress!) }
            wiped.withLock { $0.removeAll() }  // the IV handed out, wiped in the reserve (nothing of the free yet)
            context = nil
            return drawn
        }
        #expect(drawn && iv != [UInt8](repeating: 0, count: 16))
        let atFree = wiped.withLock { $0 }
        let held = atFree.filter { !$0.zero }
        #expect(held.isEmpty, "a wiped buffer still held data: \(atFree)")
        // The whole reserve, once, when the backend keeps one (OpenSSL: 2 KiB); swift-crypto keeps none (its
        // context wipes its 16-byte chaining value and partial block).
        let reserves = atFree.filter { $0.count == Backend.ivReserveSize }.count
        #expect(reserves == (Backend.ivReserveSize > 0 ? 1 : 0), "\(atFree)")
    }
}
