import PNCryptBase
import PNCryptJSON
import PNCryptCore

// The core asks whether a plaintext is a message through a check its callers pass in (`ContentCheck`); the messages
// layer passes `isMessageText` (JSON text, or PHP's raw string form) and gives `KeyRing` and `TextStreamDecryptor`
// the calls below. The core's tests may not import that layer, so they give themselves the same calls over the
// same predicate, made from the JSON layer's `isJSONText`. (`MessageTextTests` in the messages layer's tests holds
// the two to the same answers.)

/// The messages layer's `isMessageText`, for the core's tests.
func messageCheck(_ bytes: UnsafeRawBufferPointer, readable: Int) -> Bool {
    isJSONText(bytes) || (bytes.count >= 2 && bytes[0] == UInt8(ascii: "\"")
                          && bytes[bytes.count - 1] == UInt8(ascii: "\""))
}

extension KeyRing {
    /// The messages layer's `decrypt(_:reading:content:)`.
    func decrypt(_ data: some Collection<UInt8>, reading: ReadPolicy = .rule, content: Content)
        throws(PNCryptError) -> Match {
        try decrypt(data, reading: reading, content: content, check: messageCheck(_:readable:))
    }
}

extension TextStreamDecryptor {
    /// The messages layer's `init(ring:reading:)`.
    init(ring: KeyRing, reading: ReadPolicy = .rule) {
        self.init(ring: ring, reading: reading, isMessage: { messageCheck($0, readable: $0.count) })
    }
}
