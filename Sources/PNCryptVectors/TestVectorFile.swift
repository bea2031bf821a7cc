// A vector file (`Vectors/*.json`), decoded with PNCrypt's own JSON; its vectors are TestVector.swift's.

import PNCrypt
import PNCryptFiles
import SystemPackage

/// A vector file: `{"description", "source", "vectors": [...]}`.
package struct TestVectorFile: Codable, Sendable {
    /// What the file holds.
    package var description: String?
    /// The default source of its vectors.
    package var source: String?
    /// The vectors.
    package var vectors: [TestVector]

    /// Reads and parses a vector file.
    /// - Throws: `io` when it cannot be read, `invalidJSON` when it is not a vector file.
    package static func load(path: FilePath) throws(PNCryptError) -> TestVectorFile {
        guard let data = VectorFiles.contents(of: path) else {
            throw PNCryptError(.fileNotFound, "cannot read vector file '\(path.shown)'")
        }
        do {
            return try JSONValueDecoder().decode(TestVectorFile.self, from: try JSONValue(parsing: data))
        } catch {
            throw PNCryptError(.invalidJSON, "'\(path.shown)' is not a vector file: \(error)")
        }
    }
}
