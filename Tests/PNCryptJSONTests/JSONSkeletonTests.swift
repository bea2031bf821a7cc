import Testing
import PNCryptBase
import PNCryptJSON
import PNCryptTestSupport

/// The skeleton sink of the grammar loop (`JSONParser.skeleton`, the envelope path's field finder): it throws
/// exactly when parsing throws, and its nodes are the text's values, each where it lies and under its key.
@Suite("JSON skeleton")
struct JSONSkeletonTests {
    static func skeleton(_ text: String, levels: Int = 64, maxDepth: Int = JSONValue.defaultMaxDepth)
        throws(PNCryptError) -> JSONSkeleton {
        let bytes = Array(text.utf8)
        let made = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(PNCryptError) in try JSONParser.skeleton(buffer, levels: levels, maxDepth: maxDepth) }
        }
        return try made.get()
    }

    /// The children of the node at `index`: the node after it, that node's `next`, and so on before its own.
    static func children(_ skeleton: JSONSkeleton, of index: Int) -> [Int] {
        var children: [Int] = []
        var child = index + 1
        while child < skeleton.nodes[index].next {
            children.append(child)
            child = skeleton.nodes[child].next
        }
        return children
    }

    /// The value the node at `index` stands for, made from the skeleton alone (its leaves parsed from their text).
    static func value(_ skeleton: JSONSkeleton, _ index: Int, _ bytes: [UInt8]) throws -> JSONValue {
        let node = skeleton.nodes[index]
        let children = Self.children(skeleton, of: index)
        switch node.kind {
        case .array:
            return .array(try children.map { try value(skeleton, $0, bytes) })
        case .object:
            return .object(JSONObject(try children.map { child in
                let key = try #require(skeleton.nodes[child].key)
                return (try JSONValue(parsing: bytes[key]).stringValue ?? "", try value(skeleton, child, bytes))
            }))
        default:
            return try JSONValue(parsing: bytes[node.range])
        }
    }

    @Test("every text of the transcoder's corpus: a skeleton exactly when it parses, and the same value")
    func corpus() throws {
        for text in JSONTranscodeTests.corpus {
            let bytes = Array(text.utf8)
            let parsed = try? JSONValue(parsing: bytes)
            let made = try? Self.skeleton(text)
            #expect((made != nil) == (parsed != nil), "\(text)")
            guard let made, let parsed else { continue }
            #expect(try Self.value(made, 0, bytes) == parsed, "\(text)")
            #expect(made.nodes[0].next == made.nodes.count, "\(text)")
        }
    }

    @Test("the same error as parsing, depth limit included")
    func errors() throws {
        for text in ["[1,]", "{\"a\" 1}", "[\"\\x\"]", "[tru]", "[01]", "[1] x", String(repeating: "[", count: 9)] {
            var expected: PNCryptError?
            do throws(PNCryptError) { _ = try JSONValue(parsing: text, maxDepth: 8) } catch { expected = error }
            var got: PNCryptError?
            do throws(PNCryptError) { _ = try Self.skeleton(text, levels: 2, maxDepth: 8) } catch { got = error }
            #expect(got?.code == expected?.code, "\(text)")
            #expect(got?.message == expected?.message, "\(text)")
        }
    }

    @Test("values deeper than the levels kept are only part of their container's text")
    func levels() throws {
        let text = #"{"a":{"b":[1,{"c":2}]},"d":[true,null]}"#
        let bytes = Array(text.utf8)
        let made = try Self.skeleton(text, levels: 2)
        #expect(made.nodes.map(\.kind) == [.object, .object, .array])
        #expect(String(decoding: bytes[made.nodes[1].range], as: UTF8.self) == #"{"b":[1,{"c":2}]}"#)
        #expect(made.nodes[1].key.map { String(decoding: bytes[$0], as: UTF8.self) } == #""a""#)
        #expect(Self.children(made, of: 0) == [1, 2])
        #expect(Self.children(made, of: 1).isEmpty)
        let deeper = try Self.skeleton(text, levels: 3)
        // 0 the text's object, 1 "a", 2 "b" (level 3: its elements are not kept), 3 "d", 4 and 5 its elements.
        #expect(Self.children(deeper, of: 0) == [1, 3] && Self.children(deeper, of: 2).isEmpty)
        #expect(Self.children(deeper, of: 3).map { deeper.nodes[$0].kind } == [.literal, .literal])
        #expect(deeper.nodes.last?.key == nil)
    }

    @Test("white space and escapes as the compact writer writes them")
    func flags() throws {
        #expect(try !Self.skeleton(#"{"a":[1,"x"]}"#).hasSpace)
        #expect(try Self.skeleton(#"{"a": [1]}"#).hasSpace)
        #expect(try Self.skeleton(" [1]").hasSpace)
        #expect(try !Self.skeleton(#"["\"\\\n\t\b\f\r\u001f\u0000é"]"#).hasSpace)
        #expect(try Self.skeleton(#"["\"\\\n\t\b\f\r\u001f\u0000é"]"#).compactEscapes)
        for escaped in [#"["\/"]"#, #"["\u0041"]"#, #"["\u000a"]"#, #"["\u001F"]"#, #"{"\u00e9":1}"#] {
            #expect(try !Self.skeleton(escaped).compactEscapes, "\(escaped)")
        }
    }
}
