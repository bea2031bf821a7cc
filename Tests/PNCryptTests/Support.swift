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

    /// The vector of `Vectors/spec.json` with `id` (tests use the file, never a hand-typed copy).
    static func specVector(_ id: String) throws -> TestVector {
        guard let found = try vectors("spec.json").first(where: { $0.id == id }) else {
            throw PNCryptError(.invalidValue, "no vector \(id) in spec.json")
        }
        return found
    }

    /// The Base64 ciphertext of the `spec.json` vector `id`.
    static func specCiphertext(_ id: String) throws -> String {
        guard let ciphertext = try specVector(id).ciphertext else {
            throw PNCryptError(.invalidValue, "vector \(id) has no ciphertext")
        }
        return ciphertext
    }
}

extension Array where Element == UInt8 {
    init(_ text: String) { self = Array(text.utf8) }
}

/// The one expect-error helper: runs `body` and returns the `PNCryptError` it throws, recording an issue when it
/// throws nothing or another error. With `code` and `message`, also checks them (the message exactly).
/// (Generic over the closure's error type: converting a typed-throws closure to `throws` crashes Swift 6.3.1.)
@discardableResult
func expectPNError<T, E: Error>(_ code: PNCryptError.Code? = nil, _ message: String? = nil,
                                sourceLocation: SourceLocation = #_sourceLocation,
                                _ body: () throws(E) -> T) -> PNCryptError? {
    do {
        let value = try body()
        Issue.record("expected \(code.map { "a \($0) error" } ?? "an error"), got \(value)",
                     sourceLocation: sourceLocation)
        return nil
    } catch {
        guard let error = error as? PNCryptError else {
            Issue.record("expected a PNCryptError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
        if let code { #expect(error.code == code, sourceLocation: sourceLocation) }
        if let message { #expect(error.message == message, sourceLocation: sourceLocation) }
        return error
    }
}
