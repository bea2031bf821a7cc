import Foundation
import Testing
@testable import PNCrypt
import PNCryptVectors

/// Paths of the package, found from this file's location.
enum Package {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let vectors = root.appendingPathComponent("Vectors")

    /// Loads one vector file of `Vectors/`.
    static func vectors(_ name: String) throws -> [TestVector] {
        try TestVectorFile.load(path: vectors.appendingPathComponent(name).path).vectors
    }
}

extension Array where Element == UInt8 {
    init(_ text: String) { self = Array(text.utf8) }
}

/// Runs `body` and returns the `PNCryptError` it throws (failing the test when it throws none).
func expectPNError(_ body: () throws(PNCryptError) -> some Any, sourceLocation: SourceLocation = #_sourceLocation)
    -> PNCryptError? {
    do {
        let value = try body()
        Issue.record("expected an error, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
