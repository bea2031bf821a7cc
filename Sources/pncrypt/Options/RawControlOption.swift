import ArgumentParser
import PNCrypt
import PNCryptPlatform
import PNCryptFiles

/// `--raw-control` of the commands that write data they did not make to a terminal (`decrypt`, `message decrypt`,
/// `history decrypt`, `gunzip`, `gzip -d`).
struct RawControlOption: ParsableArguments {
    @Flag(name: .customLong("raw-control"), help: ArgumentHelp("""
        Write control characters to a terminal as they are. Without it, decrypted or decompressed text on a \
        terminal shows every control character but newline and tab escaped: as \\xNN in text (ESC as \\x1b), \
        and in JSON, which escapes C0 itself, DEL and C1 as \\u00XX (--lines output too). Pipes and files always \
        get the exact bytes.
        """))
    var rawControl = false
}
