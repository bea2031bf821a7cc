import Foundation
import PNCryptJSON
import Testing

/// One vector of Vectors/envelopes/envelopes.json (scripts/vectors/gen_envelope_vectors.py): a response whose messages
/// the PubNub Python SDK encrypted in place, one of them with another key. Read here, below the messages layer, so that
/// the messages layer's tests and the CLI's read the one file the same way.
package struct EnvelopeVector: CustomTestStringConvertible, Sendable {
    package var id: String
    /// The response's format, as `EnvelopeFormat` and `--format` spell it (`v2`, `v3`, `subscribe`).
    package var format: String
    package var key: String
    package var encrypted: String
    package var decrypted: String
    /// The statuses expected, as objects of index, channel and timetoken.
    package var failures: [JSONValue]

    package var testDescription: String { id }

    package static let path = Package.vectors.appendingPathComponent("envelopes/envelopes.json")

    package static let all: [EnvelopeVector] = load(path)

    /// Vectors/envelopes/recorded.json (scripts/vectors/gen_recorded_envelopes.py): bodies recorded from the network by
    /// PubNub SDKs' integration tests, their messages encrypted in place by the PubNub Python SDK (fixed IV,
    /// random IV, acrh), one of them (in a body with two or more) with another key.
    package static let recorded: [EnvelopeVector] = load(Package.vectors.appendingPathComponent(
        "envelopes/recorded.json"))

    /// The recorded v3 vectors, and their encrypted bodies as one NDJSON archive.
    package static var recordedArchive: (vectors: [EnvelopeVector], text: [UInt8]) {
        let vectors = recorded.filter { $0.format == "v3" }
        return (vectors, Array((vectors.map(\.encrypted).joined(separator: "\n") + "\n").utf8))
    }

    /// The vectors of a file in the format of Vectors/envelopes/envelopes.json (recorded.json has it too).
    package static func load(_ path: URL) -> [EnvelopeVector] {
        guard let data = try? Data(contentsOf: path), case .object(let root)? = try? JSONValue(parsing: Array(data)),
              case .array(let vectors)? = root["vectors"] else { return [] }
        return vectors.compactMap { value in
            guard case .object(let v) = value, let id = v["id"]?.stringValue, let format = v["format"]?.stringValue,
                  let key = v["key"]?.stringValue, let encrypted = v["encrypted"]?.stringValue,
                  let decrypted = v["decrypted"]?.stringValue, let failures = v["failures"]?.arrayValue
            else { return nil }
            return EnvelopeVector(id: id, format: format, key: key, encrypted: encrypted, decrypted: decrypted,
                                  failures: failures)
        }
    }
}
