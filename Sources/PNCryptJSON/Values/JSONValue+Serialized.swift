// A value written as JSON text: the public entry to the writer (JSONWriter.swift).

extension JSONValue {
    /// The JSON text of this value as UTF-8 bytes, laid out as `style` says.
    ///
    /// Never fails: every `JSONValue` has a JSON text. Integers are written with all their digits.
    public func serialized(style: JSONStyle = .compact) -> [UInt8] {
        withUnsafeTemporaryAllocation(byteCount: JSONWriter.stackBytes, alignment: 16) { scratch in
            var writer = JSONWriter(style: style, output: ByteBuffer(startingIn: scratch, secret: false))
            writer.write(self)
            return writer.output.array()
        }
    }

    /// Writes this value's JSON text and runs `body` over it, without making an array (the message path). The
    /// text is plaintext that callers encrypt: every byte of it is wiped once `body` returns.
    @inlinable
    package func withSerialized<R, E: Error>(style: JSONStyle, _ body: (UnsafeRawBufferPointer) throws(E) -> R)
        throws(E) -> R {
        try JSONWriter.withSerialized(self, style: style, body)
    }

    /// The JSON text of this value as a `String`, laid out as `style` says; see `serialized(style:)`.
    public func serializedString(style: JSONStyle = .compact) -> String {
        String(decoding: serialized(style: style), as: UTF8.self)
    }
}
