// Paths are bytes: a path is swift-system's `FilePath`, which holds the bytes it was given (argv's, a C caller's)
// and hands the same bytes to the system calls of this layer. A path that is not UTF-8 names that file, never the
// one its lossy decoding (U+FFFD) would name. How a path is shown in a message is here too, once.

import PNCryptBase
import PNCryptCore
import PNCryptPlatform
import SystemPackage

extension FilePath {
    /// The path of exactly `bytes` (no NUL: argv and C strings hold none). `FilePath` drops a trailing `/`, which
    /// says the path is a folder: it is kept as a last `.` (`out/` is `out/.`), which the kernel reads the same way
    /// (a file there is `ENOTDIR`; an output path ending in `.` names a folder and is refused).
    package init(bytes: some Collection<UInt8>) {
        var characters = bytes.map { CChar(bitPattern: $0) }
        if characters.count > 1, characters.last == 0x2F, characters.contains(where: { $0 != 0x2F }) {
            characters.append(0x2E)
        }
        characters.append(0)
        self.init(platformString: characters)
    }

    /// The path's bytes.
    package var bytes: [UInt8] {
        withPlatformString { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
    }

    /// The path as a message shows it: its text, with every byte that is not part of valid UTF-8 as `\xNN`
    /// (`in\xfe.txt`): never U+FFFD, never bytes a terminal could not show. Its control characters stay, as in
    /// every message: the CLI's escaper shows them on a terminal (`TerminalEscaper`); a pipe gets them as they are.
    package var shown: String {
        var bytes = self.bytes
        // A trailing `/` is kept as `/.` (`init(bytes:)`): shown as it was given.
        if bytes.count > 2 && bytes.suffix(2).elementsEqual("/.".utf8) { bytes.removeLast() }
        return ShownBytes.text(bytes)
    }
}

extension FilePath.Component {
    /// The component's bytes.
    package var bytes: [UInt8] {
        withPlatformString { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
    }

    /// The name as a message shows it (as `FilePath.shown`).
    package var shown: String { ShownBytes.text(bytes) }
}

/// Bytes on their way to a person (a terminal, a message): every control character but (with `layout`) newline
/// and tab is shown as `\xNN`, its bytes in lowercase hex: C0 controls (ESC is `\x1b`), DEL (`\x7f`), C1 controls
/// in UTF-8 (U+009B is `\xc2\x9b`) and every byte that is not part of valid UTF-8 (a lone 0x9B is a control on 8-bit
/// terminals). Everything else, non-ASCII text included, passes unchanged. The one rule for the CLI's text on a
/// terminal (`TerminalEscaper`) and, for its bytes that are not UTF-8, for paths in messages (`FilePath.shown`).
package enum ShownBytes {
    /// `bytes` as text: each byte that is not part of valid UTF-8 as `\xNN`, the rest (control characters too) as
    /// it is.
    package static func text(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        _ = escape(bytes, layout: true, controls: false, final: true, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the shown form of `bytes` to `out`; `layout` keeps newline and tab; without `controls`, only bytes
    /// that are not UTF-8 are escaped. Without `final`, a UTF-8 sequence cut by the end of `bytes` is left for the
    /// next call: returns where it starts (`bytes.count` when everything was written).
    package static func escape(_ bytes: [UInt8], layout: Bool, controls: Bool = true, final: Bool,
                               into out: inout [UInt8]) -> Int {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if (layout && (b == 0x0A || b == 0x09)) || (b >= 0x20 && b < 0x7F) || (!controls && b < 0x80) {
                out.append(b)
                i += 1
                continue
            }
            let length = switch b {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 1
            }
            if length == 1 {
                hex(b, into: &out)
                i += 1
                continue
            }
            // Wait for the rest, unless what is there already cannot start a sequence.
            if i + length > n && !final && bytes[(i + 1)...].allSatisfy({ $0 & 0xC0 == 0x80 }) { return i }
            let sequence = bytes[i..<min(i + length, n)]
            if sequence.count == length, String(validating: sequence, as: UTF8.self) != nil {
                if controls && b == 0xC2 && bytes[i + 1] < 0xA0 {
                    // A C1 control character (U+0080 to U+009F).
                    hex(b, into: &out)
                    hex(bytes[i + 1], into: &out)
                } else {
                    out += sequence
                }
                i += length
            } else {
                hex(b, into: &out)
                i += 1
            }
        }
        return n
    }

    private static func hex(_ byte: UInt8, into out: inout [UInt8]) {
        out += [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        Hex.append(CollectionOfOne(byte), to: &out)
    }
}
