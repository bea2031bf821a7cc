import ArgumentParser
import PNCryptPlatform
import SystemPackage

/// One line on standard error saying how far a run has got, redrawn in place (carriage return, erase to the end of
/// the line) at most four times a second, and erased when the run ends or something else is printed.
///
/// `12.6 MB of 104.9 MB (12%), 120,411 lines, 41.2 MB/s, 0:02 left`
final class ProgressLine {
    private let total: Int64?
    private let enabled: Bool
    private let showsLines: Bool
    private let start = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant
    private var shown = false
    /// Seconds between redraws: 0.25, or `PNCRYPT_PROGRESS_INTERVAL` (tests set 0 to see every update).
    private let interval: Duration

    init(total: Int64?, enabled: Bool, showsLines: Bool = true) {
        self.total = total
        self.enabled = enabled
        self.showsLines = showsLines
        lastDraw = start
        let seconds = getenv("PNCRYPT_PROGRESS_INTERVAL").flatMap { Double(String(cString: $0)) } ?? 0.25
        interval = .milliseconds(Int(max(0, seconds) * 1000))
    }

    /// Notes that `bytes` of input (and `lines`) are done; redraws when the last draw is old enough.
    func update(bytes: Int64, lines: Int? = nil) {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - lastDraw >= interval else { return }
        lastDraw = now
        let elapsed = Self.seconds(now - start)
        var parts: [String] = []
        if let total {
            let percent = total > 0 ? Int(Double(bytes) * 100 / Double(total)) : 100
            parts.append("\(Self.size(bytes)) of \(Self.size(total)) (\(percent)%)")
        } else {
            parts.append(Self.size(bytes))
        }
        if showsLines, let lines { parts.append("\(Self.grouped(lines)) lines") }
        let rate = elapsed > 0 ? Double(bytes) / elapsed : 0
        if elapsed > 0 { parts.append("\(Self.size(Int64(rate)))/s") }
        if let total, rate > 0, bytes < total {
            parts.append("\(Self.clock(Double(total - bytes) / rate)) left")
        }
        write("\r" + parts.joined(separator: ", ") + "\u{1B}[K")
        shown = true
    }

    /// Erases the line (before other output on standard error, and at the end).
    func clear() {
        guard shown else { return }
        shown = false
        write("\r\u{1B}[K")
    }

    private func write(_ text: String) {
        let bytes = Array(text.utf8)
        try? FileDescriptor.standardError.writeAll(bytes, naming: "standard error")
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Decimal units, as disks and network rates are given: `950 B`, `12.6 MB`, `1.2 GB`.
    static func size(_ bytes: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : PlainText.format("%.1f", value) + " " + units[unit]
    }

    /// `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    /// `0:07`, `12:34`, `1:02:03`.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? PlainText.format("%d:%02d:%02d", h, m, s) : PlainText.format("%d:%02d", m, s)
    }
}
