import PNCryptBase

// Text written without a value (JSONParser.transcode): a JSON text rewritten in a style, for the message paths that
// write a decrypted message straight back out.

extension JSONWriter {
    /// Runs `body` over the JSON text in `bytes` written in `style`: what `JSONValue(parsing:)` and then
    /// `withSerialized(style:)` give, without making the value (`JSONParser.transcode`); `readable` bytes from
    /// `bytes`' start may be loaded. False, with `body` not run, when `bytes` is not one JSON text (exactly when
    /// parsing it throws) or `style` is an SDK style (`JSONStyle.isExact` false: those reorder members, so only a
    /// value can be written in them). The text is plaintext: wiped once `body` returns, as `withSerialized` does.
    /// Not generic: callers in other modules run it specialized.
    package static func withTranscoded(_ bytes: UnsafeRawBufferPointer, readable: Int, style: JSONStyle,
                                       _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        guard style.isExact else { return false }
        return withUnsafeTemporaryAllocation(byteCount: stackBytes, alignment: 16) { scratch in
            var writer = JSONWriter(style: style, output: ByteBuffer(startingIn: scratch, secret: true))
            do {
                try JSONParser.transcode(bytes.assumingMemoryBound(to: UInt8.self),
                                         maxDepth: JSONValue.defaultMaxDepth, readable: readable, into: &writer)
            } catch {
                return false
            }
            writer.output.withBytes(body)
            return true
        }
    }

    /// One structural byte: `{`, `}`, `[` or `]`.
    @inline(__always)
    package mutating func writeStructure(_ byte: UInt8) {
        output.append(byte)
    }

    /// What comes between two elements or members.
    @inline(__always)
    package mutating func writeSeparator() {
        separator()
    }

    /// What comes after a key.
    @inline(__always)
    package mutating func writeKeySeparator() {
        output.append(UInt8(ascii: ":"))
        if spaced { output.append(UInt8(ascii: " ")) }
    }

    /// The string whose UTF-8 is `utf8` (valid UTF-8), as `write(_:)` writes that `String`.
    @inline(__always)
    package mutating func writeString(utf8: UnsafeBufferPointer<UInt8>) {
        writeEscaped(utf8)
    }

    /// The string whose UTF-8 is `utf8` (valid UTF-8; `ascii`: only ASCII), as `write(_:)` writes that `String`.
    /// `readable`: how many bytes from `utf8`'s start may be loaded (at least its count + 16: a document's text and
    /// its padding), so that the string is scanned a word at a time to its end.
    @inline(__always)
    package mutating func writeString(utf8: UnsafeBufferPointer<UInt8>, readable: Int, ascii: Bool) {
        let count = utf8.count
        guard let base = utf8.baseAddress, readable >= count + 16 else { return writeEscaped(utf8) }
        let raw = UnsafeRawPointer(base)
        if ascii && count <= 16 {
            if writeShortASCII(UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)),
                               UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                               count: count) { return }
            return writeEscaped(utf8)
        }
        // Whether a byte needs writing other than as itself, a word at a time, the bytes past the string masked off.
        var index = 0
        while index < count {
            var found = specialBytes(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
            if count - index < 8 { found &= (1 << ((count - index) << 3)) &- 1 }
            if found != 0 { return writeEscaped(utf8) }
            index += 8
        }
        writeQuoted(utf8)
    }

    /// `string`, as the walk writes it.
    package mutating func writeString(_ string: String) {
        write(string)
    }

    /// `number`, as the walk writes it.
    package mutating func writeNumber(_ number: JSONNumber) {
        write(number)
    }

    /// `text`, a compact JSON text with no escaped string, as it is (`copiesVerbatim`).
    package mutating func writeVerbatim(_ text: UnsafeBufferPointer<UInt8>) {
        output.append(text)
    }

    /// `true`, `false` or `null`.
    package mutating func writeLiteral(_ word: StaticString) {
        append(word)
    }
}
