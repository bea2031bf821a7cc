import Foundation
import Testing
import PNCryptTestSupport

/// Suites are found by their file names: every test file `Tests/<Target>/<Name>.swift` holds one top-level suite,
/// named `<Name>` (suites nested in it, extensions of it and helper types beside it are fine), and no other
/// top-level suite.
@Suite struct SuiteNameTests {
    /// The top-level suite types of a Swift file: the types and extensions declared at the start of a line that carry
    /// `@Suite` or hold a `@Test` or `@Suite`, in order, an extended suite once for each block.
    static func topLevelSuites(in text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let declaration = #/(?:^|[\s)])(?:struct|class|enum|actor|extension)\s+([A-Za-z_][A-Za-z0-9_]*)/#
        var suites: [String] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            guard let first = line.first, first.isLetter || first == "@", !line.hasPrefix("import"),
                  let match = line.firstMatch(of: declaration) else {
                index += 1
                continue
            }
            var end = index
            while end < lines.count && lines[end] != "}" { end += 1 }
            let body = lines[index..<min(end + 1, lines.count)]
            var attributes = index
            while attributes > 0 && (lines[attributes - 1].hasPrefix("@") || lines[attributes - 1].hasPrefix(" ")) {
                attributes -= 1
            }
            let marked = lines[attributes...index].contains { $0.contains("@Suite") }
            if marked || body.contains(where: { $0.contains("@Test") || $0.contains("@Suite") }) {
                suites.append(String(match.1))
            }
            index = end + 1
        }
        return suites
    }

    @Test func everyTestFileHoldsTheSuiteItIsNamedFor() throws {
        let root = Package.root.appendingPathComponent("Tests")
        var checked = 0
        for target in try FileManager.default.contentsOfDirectory(atPath: root.path) where target.hasSuffix("Tests") {
            let folder = root.appendingPathComponent(target)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                guard text.contains("@Test") else { continue }
                let name = String(file.dropLast(".swift".count))
                let suites = Self.topLevelSuites(in: text)
                #expect(suites.contains(name), "\(target)/\(file) holds no top-level suite named \(name)")
                let others = Set(suites.filter { $0 != name })
                #expect(others.isEmpty, "\(target)/\(file) holds other top-level suites: \(others.sorted())")
                checked += 1
            }
        }
        #expect(checked > 50, "only \(checked) test files found")
    }

    @Test func theCheckFindsSuitesNamedOtherwise() {
        let text = """
            import Testing

            /// A helper, not a suite.
            enum Helper {
                static let value = 1
            }

            @Suite(.tags(.cli)) struct First {
                @Test func one() {}
            }

            @Suite("a display name", .serialized,
                   .enabled(if: true))
            struct Second {
                struct Nested {}
            }

            extension Third {
                @Test func two() {}
            }

            final class Fourth {
                @Suite struct Inner {
                    @Test func three() {}
                }
            }
            """
        #expect(Self.topLevelSuites(in: text) == ["First", "Second", "Third", "Fourth"])
    }
}
