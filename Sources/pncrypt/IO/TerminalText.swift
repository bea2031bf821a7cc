import ArgumentParser
import PNCrypt
import PNCryptPlatform
import PNCryptFiles
import SystemPackage

/// Decrypted text on its way to a terminal: every control character but newline and tab is shown as `\xNN` (its
/// bytes in lowercase hex), so that a plaintext cannot move the cursor, clear the screen, retitle the window or
/// send other commands to the terminal. That covers C0 controls (ESC is `\x1b`), DEL
/// (`\x7f`), C1 controls in UTF-8 (U+009B is `\xc2\x9b`) and bytes that are not part of valid UTF-8 (a lone 0x9B is
/// a control on 8-bit terminals). Everything else, non-ASCII text included, passes unchanged. Only for a terminal:
/// pipes and files get the exact bytes, and `--raw-control` writes them raw to a terminal too.
final class TerminalEscaper: ByteStreamStage {
    /// The bytes of a UTF-8 sequence cut by the end of the last chunk (at most 3).
    private var pending: [UInt8] = []
    private var finished = false
    /// Whether newline and tab pass unchanged (text); without, they are escaped too (one line of a message).
    private let layout: Bool

    init(layout: Bool = true) {
        self.layout = layout
    }

    /// `bytes` escaped at once, for a terminal: `layout` keeps newline and tab.
    static func escaped(_ bytes: [UInt8], layout: Bool) -> [UInt8] {
        var out: [UInt8] = []
        TerminalEscaper(layout: layout).escape(bytes, final: true, into: &out)
        return out
    }

    /// An escaper when `fd` is a terminal and `raw` is false, else nil (the exact bytes).
    static func forOutput(_ fd: FileDescriptor, raw: Bool) -> TerminalEscaper? {
        !raw && isatty(fd.rawValue) == 1 ? TerminalEscaper() : nil
    }

    func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the terminal escaper has already finished") }
        let bytes = pending + Array(input)
        pending = []
        try emit(bytes, final: false, sink)
    }

    func finish(_ sink: ByteSink) throws(PNCryptError) {
        guard !finished else { throw PNCryptError(.invalidValue, "the terminal escaper has already finished") }
        finished = true
        let bytes = pending
        pending = []
        try emit(bytes, final: true, sink)
    }

    /// The escaped form of `bytes`, written to `sink`; without `final`, a sequence cut at the end waits.
    private func emit(_ bytes: [UInt8], final: Bool, _ sink: ByteSink) throws(PNCryptError) {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        escape(bytes, final: final, into: &out)
        guard !out.isEmpty else { return }
        try withBytes(out, sink)
    }

    /// Appends the escaped form of `bytes` to `out` (the one rule, `ShownBytes`); without `final`, a sequence cut
    /// at the end waits in `pending`.
    private func escape(_ bytes: [UInt8], final: Bool, into out: inout [UInt8]) {
        let end = ShownBytes.escape(bytes, layout: layout, final: final, into: &out)
        if end < bytes.count { pending = Array(bytes[end...]) }
    }
}

extension TerminalEscaper {
    /// JSON text for `fd`: on a terminal (unless `raw`), the control characters JSON leaves raw (DEL, and C1 controls
    /// in UTF-8; C0 controls are escaped by the writer already) become `\u00XX` escapes. They can only occur inside
    /// strings, so the text stays valid JSON with the same value; newline and tab (the `pretty` layout) stay.
    static func json(_ bytes: [UInt8], for fd: FileDescriptor, raw: Bool) -> [UInt8] {
        guard !raw, isatty(fd.rawValue) == 1 else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            var control: UInt8?
            if (b < 0x20 && b != 0x0A && b != 0x09) || b == 0x7F {
                control = b
            } else if b == 0xC2, i + 1 < bytes.count, (0x80...0x9F).contains(bytes[i + 1]) {
                control = bytes[i + 1]
                i += 1
            }
            if let control {
                unicodeEscape(control, into: &out)
            } else {
                out.append(b)
            }
            i += 1
        }
        return out
    }

    /// Appends `\u00XX`, the JSON escape of `control` (a C0, DEL or C1 control character).
    static func unicodeEscape(_ control: UInt8, into out: inout [UInt8]) {
        out += Array("\\u00".utf8)
        Hex.append(CollectionOfOne(control), to: &out)
    }
}

/// Line-mode output (NDJSON) on its way to a terminal, as `TerminalEscaper.json` does for one JSON text but in
/// chunks: C0 controls but newline, tab and the CR of a CRLF line end, DEL and C1 controls in UTF-8 become `\u00XX`.
/// A line passed through unchanged (`--on-error passthrough`) is escaped the same way. Only for a terminal.
final class TerminalLineEscaper: ByteStreamStage {
    /// A 0xC2 or CR cut by the end of the last chunk: what it is depends on the next byte.
    private var pending: UInt8?

    /// An escaper when `fd` is a terminal and `raw` is false, else nil (the exact bytes).
    static func forOutput(_ fd: FileDescriptor, raw: Bool) -> TerminalLineEscaper? {
        !raw && isatty(fd.rawValue) == 1 ? TerminalLineEscaper() : nil
    }

    func update(_ input: UnsafeRawBufferPointer, _ sink: ByteSink) throws(PNCryptError) {
        var out: [UInt8] = []
        out.reserveCapacity(input.count + 16)
        var i = 0
        if let first = pending {
            guard !input.isEmpty else { return }
            pending = nil
            if Self.resolve(first, next: input[0], into: &out) { i = 1 }
        }
        while i < input.count {
            let b = input[i]
            i += 1
            if (b >= 0x20 && b != 0x7F && b != 0xC2) || b == 0x0A || b == 0x09 {
                out.append(b)
            } else if b == 0xC2 || b == 0x0D {
                guard i < input.count else {
                    pending = b
                    break
                }
                if Self.resolve(b, next: input[i], into: &out) { i += 1 }
            } else {
                TerminalEscaper.unicodeEscape(b, into: &out)
            }
        }
        guard !out.isEmpty else { return }
        try withBytes(out, sink)
    }

    func finish(_ sink: ByteSink) throws(PNCryptError) {
        guard let last = pending else { return }
        pending = nil
        var out: [UInt8] = []
        if last == 0x0D { TerminalEscaper.unicodeEscape(last, into: &out) } else { out.append(last) }
        try withBytes(out, sink)
    }

    /// Appends `byte`, a 0xC2 or CR whose meaning depends on the byte after it, `next`: the escape of the C1 control
    /// 0xC2 `next` starts, of a CR not before a newline, else `byte` itself. Returns whether `next` was used.
    private static func resolve(_ byte: UInt8, next: UInt8, into out: inout [UInt8]) -> Bool {
        if byte == 0xC2 && (0x80...0x9F).contains(next) {
            TerminalEscaper.unicodeEscape(next, into: &out)
            return true
        }
        if byte == 0x0D && next != 0x0A {
            TerminalEscaper.unicodeEscape(byte, into: &out)
        } else {
            out.append(byte)
        }
        return false
    }
}
