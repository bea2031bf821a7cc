import PNCryptPlatform

// The few text operations the CLI took from Foundation, in plain Swift and libc: the command links no Foundation
// (no ICU; docs/performance.md, "Binary size"), and each keeps the output Foundation's call gave.

enum PlainText {
    /// `format` filled in by C's printf rules (`vsnprintf`), as `String(format:)` did for these formats: `%.1f`,
    /// `%d`, `%02d`. Only for numbers: a `%s` would need a C string, which no caller passes.
    static func format(_ format: String, _ arguments: CVarArg...) -> String {
        withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 64)
            let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
            precondition(needed >= 0 && needed < buffer.count, "PlainText.format: \(format) needs \(needed) bytes")
            return String(decoding: buffer[0..<needed].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// `text` without leading and trailing white space and line ends, as Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`: Unicode's White_Space scalars (space and tab, LF to CR,
    /// NEL, no-break and the other Z* spaces, the line and paragraph separators).
    static func trimmingWhitespace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
