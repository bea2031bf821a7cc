import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

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
}
