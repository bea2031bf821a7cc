import Foundation
import Testing
import PNCrypt
import PNCryptTestSupport
import PNCryptCLITestSupport

/// `PNCryptVersion` is the one place the version is set; these are the copies that cannot read it.
@Suite struct VersionTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: Package.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The value of the first line of `text` starting with `prefix` (up to the end of the line).
    static func value(after prefix: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    @Test func numbersMakeTheString() {
        #expect(PNCryptVersion.string == "\(PNCryptVersion.major).\(PNCryptVersion.minor).\(PNCryptVersion.patch)")
        #expect(PNCryptVersion.string.split(separator: ".").count == 3)
    }

    @Test func cHeaderMacrosAreACopy() throws {
        let header = try Self.text("include/pncrypt.h")
        #expect(Self.value(after: "#define PNCRYPT_VERSION_MAJOR ", in: header) == "\(PNCryptVersion.major)")
        #expect(Self.value(after: "#define PNCRYPT_VERSION_MINOR ", in: header) == "\(PNCryptVersion.minor)")
        #expect(Self.value(after: "#define PNCRYPT_VERSION_PATCH ", in: header) == "\(PNCryptVersion.patch)")
        #expect(Self.value(after: "#define PNCRYPT_VERSION_STRING ", in: header) == "\"\(PNCryptVersion.string)\"")
    }

    @Test func pythonPackageVersionIsACopy() throws {
        let project = try Self.text("bindings/python/pyproject.toml")
        #expect(Self.value(after: "version = ", in: project) == "\"\(PNCryptVersion.string)\"")
    }

    /// The newest release in CHANGELOG.md (the first `## [X.Y.Z]` heading after `## [Unreleased]`) is this version:
    /// a release moves "Unreleased" under its number and sets the number in Version.swift, together.
    @Test func changelogNewestReleaseIsThisVersion() throws {
        let headings = try Self.text("CHANGELOG.md").split(separator: "\n").filter { $0.hasPrefix("## [") }
        #expect(headings.first == "## [Unreleased]")
        let newest = headings.dropFirst().first.map { $0.dropFirst(4).prefix { $0 != "]" } }
        #expect(newest.map(String.init) == PNCryptVersion.string)
    }

    @Test func cliPrintsIt() throws {
        let result = try CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.text == PNCryptVersion.string + "\n")
    }
}
