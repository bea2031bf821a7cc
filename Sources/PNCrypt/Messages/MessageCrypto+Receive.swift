// The message receive path over raw bytes: Base64 decoded into scratch, decrypted into scratch, parsed from it.
//
// Ownership: the text is borrowed from the caller (or from a `String`'s UTF-8) for one call; both scratch buffers
// come from `withScratch` and never escape the call; the plaintext scratch is wiped before it is released.

import PNCryptBase
import PNCryptJSON
import PNCryptCore


extension MessageCrypto {
    /// What decrypting one message gives: small, so it moves cheaply out of the closures (a `DecryptedMessage` is
    /// over 100 bytes, copied at each level).
    typealias Opened = (value: JSONValue, keyIndex: Int, scheme: Scheme)

    /// The one way a message is opened, for every receive path: the Base64 `base64` decoded into scratch, then
    /// `body` run over the ciphertext and a plaintext scratch with room for its readings (wiped when `body`
    /// returns or throws). `lineBreaks` false refuses CR and LF inside (raw in a JSON string literal, they are not
    /// JSON).
    @inline(__always)
    func withOpening<R>(base64: UnsafeRawBufferPointer, lineBreaks: Bool,
                        _ body: (_ sealed: UnsafeRawBufferPointer, _ plain: UnsafeMutableRawBufferPointer)
                            throws(PNCryptError) -> R) throws(PNCryptError) -> R {
        try withScratch(Base64.maximumDecodedCount(base64.count)) { (ciphertext) throws(PNCryptError) -> R in
            let count = try Base64.decode(base64, into: ciphertext.baseAddress!, lineBreaks: lineBreaks)
            let sealed = UnsafeRawBufferPointer(rebasing: ciphertext[0..<count])
            return try withScratch(count + Cryptor.blockSize) { (plain) throws(PNCryptError) -> R in
                defer { wipe(plain.baseAddress!, count: plain.count) }
                return try body(sealed, plain)
            }
        }
    }

    /// Decrypts Base64 text (the content of a received JSON string) and parses the plaintext (`withOpening`).
    /// `lineBreaks` false refuses CR and LF inside (raw in a JSON string literal, they are not JSON).
    func open(base64: UnsafeRawBufferPointer, lineBreaks: Bool = true) throws(PNCryptError) -> Opened {
        try withOpening(base64: base64, lineBreaks: lineBreaks) { (sealed, plain) throws(PNCryptError) -> Opened in
            if plaintext == .text { return try openText(sealed, into: plain) }
            // The JSON check of every reading parses; the winner's value is kept (one parse per reading), in
            // inline slots: no array per message.
            var parsed = ParsedReadings()
            let match = try keys.decrypt(sealed, reading: reading, content: .message,
                                         into: plain.baseAddress!) { text, readable in
                let value = Self.parseMessage(text, readable: readable)
                let isMessage = value != nil
                // Moved in, not copied: a copy would retain the tree and release it again (two atomic
                // operations a message).
                parsed.append(consume value)
                return isMessage
            }
            // A string leaf of an iOS 3.3 message (a list of readings with `legacy33`) is raw UTF-8 text, the
            // string it was: never parsed.
            if match.scheme.row.message == .stringLeaves {
                let leaf = String(decoding: UnsafeRawBufferPointer(rebasing: plain[0..<match.count]), as: UTF8.self)
                return (.string(leaf), match.keyIndex, match.scheme)
            }
            guard let value = parsed.take(match.position) else { throw CryptoModule.decryptionFailed }
            return (value, match.keyIndex, match.scheme)
        }
    }

    /// `open(base64:)` under `PlaintextRule.text`: the readings decided for text (padding and UTF-8; JSON only as
    /// the headerless rule's first step), then the winner's message (`PlaintextRule.message`).
    @inline(never)
    private func openText(_ sealed: UnsafeRawBufferPointer, into plain: UnsafeMutableRawBufferPointer)
        throws(PNCryptError) -> Opened {
        let match = try keys.decrypt(sealed, reading: reading, content: .text, into: plain.baseAddress!,
                                     check: isMessageText(_:readable:))
        guard let value = PlaintextRule.message(UnsafeRawBufferPointer(rebasing: plain[0..<match.count]),
                                                readable: match.count, rule: .text) else {
            throw CryptoModule.decryptionFailed
        }
        return (value, match.keyIndex, match.scheme)
    }

    /// A message's value from one reading's plaintext: a JSON text, or PHP's raw string form (`isMessageText`:
    /// the string between its quotes); nil for anything else. `readable` bytes from the text's start may be loaded
    /// (`ContentCheck`).
    @inline(__always)
    static func parseMessage(_ text: UnsafeRawBufferPointer, readable: Int) -> JSONValue? {
        if let value = try? JSONValue(parsing: text, readable: readable) { return value }
        return phpRawString(text)
    }

    /// The cold half of `parseMessage`: text that is not JSON, which is PHP's raw string form or no message.
    @inline(never)
    static func phpRawString(_ text: UnsafeRawBufferPointer) -> JSONValue? {
        // Not `cond ? value : nil`: that `nil` is `JSONValue.null` (ExpressibleByNilLiteral), a message.
        guard isPHPRawString(text) else { return nil }
        return messageValue(text)
    }

    /// The value each reading's JSON check parsed, in the order the checks ran: the usual one or two readings in
    /// inline slots, more (several keys) in an array. The same shape as PNCryptCore's `InlineList`, on purpose:
    /// that generic used from this module runs unspecialised (measured: 1,600 more instructions per message).
    struct ParsedReadings {
        private var first: JSONValue?
        private var second: JSONValue?
        private var rest: [JSONValue?] = []
        private var count = 0

        mutating func append(_ value: consuming JSONValue?) {
            switch count {
            case 0: first = value
            case 1: second = value
            default: appendRest(value)
            }
            count += 1
        }

        @inline(never)
        private mutating func appendRest(_ value: JSONValue?) { rest.append(value) }

        /// The value parsed at `position` (nil when there is none), moved out.
        mutating func take(_ position: Int) -> JSONValue? {
            switch position {
            case 0 where count > 0: first.take()
            case 1 where count > 1: second.take()
            case 2... where position - 2 < rest.count: rest[position - 2].take()
            default: nil
            }
        }
    }

    /// `publishBody(_:)` appended to `output`, a buffer the caller reuses from message to message (the line path):
    /// the ciphertext and its Base64 are made in stack memory and copied once onto the end of `output`, with no
    /// array per message. Nothing is appended when it throws.
    func appendPublishBody(_ message: JSONValue, to output: inout [UInt8]) throws(PNCryptError) {
        guard scheme.row.message == .whole, style != .apple else {
            output.append(contentsOf: try publishBody(message))
            return
        }
        let key = keys.first
        let scheme = scheme
        try message.withSerialized(style: style) { (text) throws(PNCryptError) in
            let sealedCount = Cryptor.sealedLength(text.count, scheme: scheme)
            let quotedCount = Base64.encodedCount(sealedCount) + 2
            try withScratch(sealedCount + quotedCount) { (scratch) throws(PNCryptError) in
                let n = try ReadingCipher.seal(text, with: key, scheme: scheme, iv: nil, into: scratch.baseAddress!)
                let quoted = scratch.baseAddress! + sealedCount
                quoted.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
                Base64.encode(UnsafeRawBufferPointer(rebasing: scratch[0..<n]), into: quoted + 1)
                quoted.storeBytes(of: UInt8(ascii: "\""), toByteOffset: quotedCount - 1, as: UInt8.self)
                output.append(contentsOf: UnsafeRawBufferPointer(start: quoted, count: quotedCount))
            }
        }
    }

    /// The fast path of `decrypt(jsonText:policy:)`: when the text is one JSON string of Base64 characters (no
    /// escapes, so its value is exactly those bytes), decrypts them without building a `JSONValue` first.
    /// Returns nil when the text is anything else or decryption fails: the caller then takes the full path, which
    /// reports the failure exactly as `decrypt(_:policy:)` does.
    func openStringLiteral(_ text: UnsafeRawBufferPointer) -> Opened? {
        guard let content = base64Literal(text) else { return nil }
        return try? open(base64: content, lineBreaks: false)
    }

    /// The content of `text` when the fast paths take it: one JSON string of Base64 characters, white space
    /// around it, and no string leaves read (`readsLeaves`). With the content's first and last bytes Base64 characters,
    /// decoding trims and strips nothing, and with line breaks refused it accepts only Base64 characters: exactly
    /// the literals that are plain JSON strings.
    private func base64Literal(_ text: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard !readsLeaves else { return nil }
        var start = 0
        var end = text.count
        while start < end, isSpace(text[start]) { start += 1 }
        while end > start, isSpace(text[end - 1]) { end -= 1 }
        guard end - start >= 4, text[start] == UInt8(ascii: "\""), text[end - 1] == UInt8(ascii: "\""),
              Base64.isCharacter(text[start + 1]), Base64.isCharacter(text[end - 2]) else { return nil }
        return UnsafeRawBufferPointer(rebasing: text[(start + 1)..<(end - 1)])
    }

    /// `openStringLiteral` for callers that write the message straight back out as JSON text in `style` (the C
    /// library, the line and envelope paths): runs `body` over exactly what `decrypt(jsonText:policy:)` and then
    /// `message.withSerialized(style:)` give for a message that decrypts, without making the message's value
    /// (`JSONWriter.withTranscoded`: no heap object, so none of their atomic operations either). The readings are
    /// decided as on that path (`isMessageText`, what `parseMessage` accepts). False, with `body` not run, where
    /// that path does something else: text that is not a plain string literal, a decryption failure, PHP's raw
    /// string form, an SDK style (`JSONStyle.isExact` false). The caller then takes the full path, which gives
    /// the same result and reports the failure. Internal: outside `MessageCrypto` a message written back as text
    /// goes through `deliver(jsonText:style:policy:original:bareBase64:_:)`, which tries this first and falls back
    /// itself; within it, the envelope and `--field` paths call it before their own full paths (a field's and an
    /// envelope message's failures are worded by them).
    func withDecryptedText(stringLiteral text: UnsafeRawBufferPointer, style: JSONStyle,
                                   _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        guard style.isExact, let content = base64Literal(text) else { return false }
        let written = try? withOpening(base64: content, lineBreaks: false) {
            (sealed, plain) throws(PNCryptError) -> Bool in
            // The readings are decided as on the full path (`isMessageText` checks JSON without making a value);
            // the winner's text is then written. Writing it during the check instead reads the usual single
            // reading once, but ran 5-8 % slower in time here (docs/performance.md).
            let match = try keys.decrypt(sealed, reading: reading, content: plaintext.content,
                                         into: plain.baseAddress!, check: isMessageText(_:readable:))
            return JSONWriter.withTranscoded(UnsafeRawBufferPointer(rebasing: plain[0..<match.count]),
                                             readable: match.count, style: style, body)
        }
        return written ?? false
    }

    /// How a message not delivered decrypted is written back under `DecryptionPolicy.passThrough`: the original
    /// text as it was given (line mode keeps each line's bytes), or the original value in the front's style (the C
    /// library, as one message read into a value and written out again).
    package enum OriginalText: Sendable {
        case asGiven, inStyle
    }

    /// The one front for a received message written back out as JSON text in `style` (line mode, the C library):
    /// the fast path (a plain string literal decrypted and transcoded straight to text, no value made:
    /// `withDecryptedText(stringLiteral:style:_:)`) and, when it declines, the full path (the text parsed, then
    /// `decrypt(_:policy:)`, which gives every failure its status), so that no caller writes "fast, else full"
    /// itself. `write` runs once, over the text delivered: the plaintext in `style`; for a message not delivered
    /// decrypted, the marker in `style` (`.marker`) or the original (`.passThrough`, as `original` says). Returns
    /// the status of a message not delivered decrypted (one never encrypted included), nil for a plaintext.
    /// `bareBase64`: text that is not JSON but bare Base64 (`bareBase64(_:)`) is read as the JSON string it would
    /// be. Throws `invalidJSON` (and nothing is written) when the text is not JSON, nor bare Base64 when allowed.
    package func deliver(jsonText text: UnsafeRawBufferPointer, style: JSONStyle, policy: DecryptionPolicy,
                         original: OriginalText, bareBase64: Bool,
                         _ write: (UnsafeRawBufferPointer) -> Void) throws(PNCryptError) -> MessageStatus? {
        if withDecryptedText(stringLiteral: text, style: style, write) { return nil }
        // The full path; the fast path was tried above, so the value's is not tried again.
        let result: DecryptedMessage
        do throws(PNCryptError) {
            result = decrypt(try JSONValue(parsing: text), policy: policy)
        } catch {
            guard bareBase64, error.code == .invalidJSON, let base64 = Self.bareBase64(text) else { throw error }
            result = decrypt(.string(base64), policy: policy)
        }
        if result.status != nil && policy == .passThrough && original == .asGiven {
            write(text)
        } else {
            result.message.withSerialized(style: style, write)
        }
        return result.status
    }

    /// Runs `body` over the UTF-8 of `text` (contiguous for native strings; copied otherwise), keeping the typed
    /// error.
    static func withUTF8<R>(_ text: String, _ body: (UnsafeRawBufferPointer) throws(PNCryptError) -> R)
        throws(PNCryptError) -> R {
        var text = text
        return try text.withUTF8 { utf8 in
            Result { () throws(PNCryptError) -> R in try body(UnsafeRawBufferPointer(utf8)) }
        }.get()
    }
}
