import Foundation
import Testing
import PNCryptJSON
import PNCryptCore
@testable import PNCrypt
import PNCryptTestSupport

@Suite struct EnvelopeSpliceTests {
    /// The tree path's answer: the text written back, the statuses and the count, or the error.
    static func tree(_ crypto: MessageCrypto, _ text: [UInt8], _ formats: [EnvelopeFormat],
                     _ policy: DecryptionPolicy) -> String {
        do throws(PNCryptError) {
            let envelope = try Envelope(parsing: text, formats: formats)
            let result = crypto.decrypt(envelope: envelope, policy: policy)
            return describe(envelope.format, result.envelope.json.serialized(), result.statuses, result.messages)
        } catch {
            return "error \(error.code): \(error.message)"
        }
    }

    /// `decrypt(envelopeText:)`'s answer, in the same form.
    static func text(_ crypto: MessageCrypto, _ text: [UInt8], _ formats: [EnvelopeFormat],
                     _ policy: DecryptionPolicy) -> String {
        do throws(PNCryptError) {
            let result = try text.withUnsafeBufferPointer { (buffer) throws(PNCryptError) in
                try crypto.decrypt(envelopeText: buffer, formats: formats, policy: policy)
            }
            return describe(result.format, result.text, result.statuses, result.messages)
        } catch {
            return "error \(error.code): \(error.message)"
        }
    }

    static func describe(_ format: EnvelopeFormat, _ text: [UInt8], _ statuses: [MessageStatus], _ count: Int)
        -> String {
        "\(format) \(count) " + String(decoding: text, as: UTF8.self) + "\n"
            + statuses.map { String(decoding: $0.json.serialized(), as: UTF8.self) }.joined(separator: "\n")
    }

    /// Whether the splice path takes the text (rather than handing it to the tree path).
    static func spliced(_ text: [UInt8], _ formats: [EnvelopeFormat] = EnvelopeFormat.allCases) -> Bool {
        text.withUnsafeBufferPointer { buffer in
            var scanner = EnvelopeSplice(buffer)
            return (try? scanner.scan(formats: formats)) != nil
        }
    }

    static let policies = DecryptionPolicy.allCases

    @Test("every envelope vector, made up or recorded: the splice path takes it and gives the tree path's bytes",
          arguments: EnvelopeVector.all + EnvelopeVector.recorded)
    func vectors(_ v: EnvelopeVector) throws {
        let text = Array(v.encrypted.utf8)
        #expect(Self.spliced(text))
        let crypto = try MessageCrypto(cipherKey: v.key)
        for policy in Self.policies {
            #expect(Self.text(crypto, text, [], policy) == Self.tree(crypto, text, [], policy))
        }
        let result = try text.withUnsafeBufferPointer { (buffer) throws(PNCryptError) in
            try crypto.decrypt(envelopeText: buffer, policy: .passThrough)
        }
        #expect(String(decoding: result.text, as: UTF8.self) == v.decrypted)
    }

    /// Texts at the edges of the scan: each gives what the tree path gives (output, statuses or error), taken by
    /// the splice path or not as listed.
    static let edges: [(text: String, formats: [EnvelopeFormat], spliced: Bool)] = [
        (#"[["BQ2Ywm6XtvTCGCFPTY6FJw=="],1,2]"#, [], true),
        (" [ [ \"BQ2Ywm6XtvTCGCFPTY6FJw==\" , {\"a\" : [ 1 , 2.50e+3 ] } ] ,\r\n1,\t2 ] \n", [], true),
        (#"[[{"message":"BQ2Ywm6XtvTCGCFPTY6FJw==","timetoken":17,"meta":"x"}],1,2]"#, [], true),
        (#"[[{"message":"BQ2Ywm6XtvTCGCFPTY6FJw=="}],1,2]"#, [], true),   // no timetoken: the item is the message
        (#"[[{"message":1,"message":"BQ2Ywm6XtvTCGCFPTY6FJw==","timetoken":1}],1,2]"#, [], false),
        (#"[[],1]"#, [], false),
        (#"[["a\/b","\u00e9","\u0041"],1,2]"#, [], false),
        (#"[["\u001f\u0000\"\\\n\t","é😀\u007f"],1,2]"#, [], false),   // the writer writes U+007F raw
        ("[[\"\\u001f\\u0000\\\"\\\\\\n\\t\",\"é😀\u{7F}\"],1,2]", [], true),
        (#"{"channels":{"a b":[{"message":"BQ2Ywm6XtvTCGCFPTY6FJw==","timetoken":"1"}],"c":[]},"more":{}}"#, [],
         true),
        (#"{"channels":{"a":[{"timetoken":"1"}]}}"#, [], false),
        (#"{"channels":{"a":12}}"#, [], false),
        (#"{"channels":{},"channels":{}}"#, [], false),
        (#"{"channels":{"a":[{"message":"x"}]},"t":{},"m":[1]}"#, [], false),
        (#"{"channels":{"a":[{"message":"x"}]},"t":{},"m":[]}"#, [.subscribe], false),
        (#"{"t":{"t":"1","r":1},"m":[{"c":"a","e":4,"p":{"t":"9","r":1},"d":"BQ2Ywm6XtvTCGCFPTY6FJw=="}]}"#, [],
         true),
        (#"{"t":{"t":"1"},"m":[{"c":"a","e":4.0,"d":"BQ2Ywm6XtvTCGCFPTY6FJw=="}]}"#, [], false),
        (#"{"t":{"t":"1"},"m":[{"c":"a","e":-0,"d":"BQ2Ywm6XtvTCGCFPTY6FJw=="}]}"#, [], false),
        (#"{"t":{"t":"1"},"m":[{"c":"a","e":40,"d":"x"},{"c":"a","e":"4","d":"x"},{"e":null,"d":"x"}]}"#, [], true),
        (#"{"t":{"t":"1"},"m":[{"c":"a-pnpres","d":"x"},{"c":7,"d":"x"},{"d":"x","p":{"t":1,"t":2}}]}"#, [],
         false),
        (#"{"t":{"t":"1"},"m":[{"c":"a-pnpres","d":"x"},{"c":7,"d":"x"},{"d":"x","p":[1]}]}"#, [], true),
        ("{\"t\":{},\"m\":[{\"c\":\"\u{0600}-pnpres\",\"d\":\"x\"}]}", [], false),
        ("{\"t\":{},\"m\":[{\"c\":\"\u{00e9}-pnpres\",\"d\":\"x\"}]}", [], false),
        (#"{"t":{},"m":[{"c":"a\u0041-pnpres","d":"x"}]}"#, [], false),
        (#"{"t":{},"m":[1]}"#, [], false),
        (#"{"t":{},"m":[]}"#, EnvelopeFormat.history, false),
        (#"{"t":{},"m":[]} x"#, [], false),
        ("\u{FEFF}[[],1,2]", [], false),
        (#"[["x"],01,2]"#, [], false),
        (#"[["x"],1,2,]"#, [], false),
        (#"[["x"],tru,2]"#, [], false),
        (String(repeating: "[", count: 600) + String(repeating: "]", count: 600), [], false),
    ]

    @Test("texts at the edges: the same output, statuses or error as the tree path", arguments: 0..<edges.count)
    func edge(_ index: Int) throws {
        let (text, formats, spliced) = Self.edges[index]
        let bytes = Array(text.utf8)
        #expect(Self.spliced(bytes, formats) == spliced, "\(text)")
        let crypto = try MessageCrypto(cipherKey: "enigma", scheme: .legacy)
        for policy in Self.policies {
            #expect(Self.text(crypto, bytes, formats, policy) == Self.tree(crypto, bytes, formats, policy),
                    "\(text)")
        }
    }

    @Test("invalid UTF-8 and raw control characters are the tree path's errors")
    func invalidBytes() throws {
        let crypto = try MessageCrypto(cipherKey: "enigma")
        for bad: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x01],
                             [0xFF]] {
            let text = Array(#"[[""#.utf8) + bad + Array(#""],1,2]"#.utf8)
            #expect(!Self.spliced(text))
            #expect(Self.text(crypto, text, [], .marker) == Self.tree(crypto, text, [], .marker))
        }
    }
}
