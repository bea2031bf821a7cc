import ArgumentParser
import PNCryptPlatform
import SystemPackage

/// `--quiet`: no progress line.
struct ProgressOptions: ParsableArguments {
    @Flag(name: .customLong("quiet"), help: ArgumentHelp(
        "No progress line. (With -i PATH and a terminal on standard error, the bytes and lines done, the rate and "
        + "the time left are shown there, redrawn in place a few times a second; never when standard error is not "
        + "a terminal.)"))
    var quiet = false

    /// The progress line for reading `inputPath` (nil: standard input or TEXT, no line), or a silent one.
    func line(for inputPath: FilePath?, showsLines: Bool) -> ProgressLine {
        guard !quiet, let inputPath, isatty(STDERR_FILENO) == 1 else {
            return ProgressLine(total: nil, enabled: false)
        }
        var info = stat()
        let regular = inputPath.withPlatformString { stat($0, &info) } == 0 && (info.st_mode & S_IFMT) == S_IFREG
        let total: Int64? = regular ? Int64(info.st_size) : nil
        return ProgressLine(total: total, enabled: true, showsLines: showsLines)
    }
}
