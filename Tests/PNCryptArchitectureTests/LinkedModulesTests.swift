import Foundation
import Testing
import PNCryptTestSupport

/// What the C library links beside the standard library. One call of `firstRange(of:)` or of `String`'s
/// `contains(_: String)` brought the standard library's string processing and its regex parser, with the Unicode
/// name tables they need, into `libpncrypt.so`: 1.38 MB of 10.23 (`scripts/bench/size_report.py`). The library's
/// layers use `firstRun(of:)` and `containsRun(_:)` (`PNCryptBase/Bytes.swift`) instead, and this test reads the
/// undefined symbols of every object file of the targets the C library is made of, as built for this test run. (The
/// command links them anyway: FoundationEssentials, which swift-argument-parser brings, calls them.)
@Suite struct LinkedModulesTests {
    /// The targets linked into `libpncrypt.so`.
    static let libraryTargets = ["PNCryptPlatform", "PNCryptBase", "PNCryptJSON", "PNCryptCore", "PNCryptCompression",
                                 "PNCryptFiles", "PNCrypt", "CPNCrypt"]
    /// The standard library's modules the C library does without (their mangled-name prefixes).
    static let unwanted = ["17_StringProcessing", "12_RegexParser"]

    /// The folder of this build's products: where the test bundle is.
    static var products: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    @Test("the C library's targets call nothing of the standard library's string processing or regex parser")
    func noStringProcessingInTheLibrary() throws {
        var found: [String] = []
        for target in Self.libraryTargets {
            // The object file of each source file there is now (a build folder keeps those of files since removed).
            let folder = Self.products.appendingPathComponent("\(target).build")
            let sources = Package.root.appendingPathComponent("Sources/\(target)")
            let objects = try FileManager.default.subpathsOfDirectory(atPath: sources.path)
                .filter { $0.hasSuffix(".swift") || $0.hasSuffix(".c") }
                .map { folder.appendingPathComponent(($0 as NSString).lastPathComponent + ".o").path }
                .filter { FileManager.default.fileExists(atPath: $0) }
            #expect(!objects.isEmpty, "no object files in \(folder.path)")
            for symbol in try Self.undefinedSymbols(objects) where Self.unwanted.contains(where: symbol.contains) {
                found.append("\(target): \(symbol)")
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    /// The check finds what it is for: an object file that calls `firstRange(of:)`.
    @Test("the check finds a call of firstRange(of:)")
    func theCheckFindsACall() throws {
        try withTemporaryDirectory { folder in
            let source = folder.appendingPathComponent("probe.swift")
            try "public func probe(_ a: [UInt8]) -> Bool { a.firstRange(of: [1, 2]) != nil }\n"
                .write(to: source, atomically: true, encoding: .utf8)
            let object = folder.appendingPathComponent("probe.o").path
            try Self.run("swiftc", ["-parse-as-library", "-c", source.path, "-o", object])
            let symbols = try Self.undefinedSymbols([object])
            #expect(symbols.contains { $0.contains(Self.unwanted[0]) }, "\(symbols)")
        }
    }

    static func undefinedSymbols(_ objects: [String]) throws -> [String] {
        try run("nm", ["-u"] + objects).split(separator: "\n").map { String($0.split(separator: " ").last ?? "") }
    }

    /// Runs `tool` (found in PATH) and returns its standard output; it must exit 0.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let path = try #require(findTool(tool), "\(tool) is not in PATH")
        let result = try runProcess(path, arguments)
        try #require(result.status == 0, "\(tool): exit \(result.status): \(result.stderr)")
        return result.text
    }
}
