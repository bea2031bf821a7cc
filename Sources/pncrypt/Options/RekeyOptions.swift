import ArgumentParser
import PNCrypt
import PNCryptPlatform
import PNCryptFiles
import SystemPackage

/// The options of `message rekey` and `history rekey` after the keys: the new key and scheme, how headerless
/// data is read, and what a message that cannot be moved does to the run.
struct RekeyOptions: ParsableArguments {
    @OptionGroup var toKey: ToKeyOptions

    @OptionGroup var onErrorOption: OnErrorOption

    /// `--on-error`: passthrough when not given.
    var onError: OnError { onErrorOption.onError ?? .passthrough }

    @OptionGroup var failures: AllowFailuresOption

    @Option(name: .customLong("to-scheme"), help: "The new scheme: acrh (default), legacy-random-iv or legacy.")
    var toScheme: Scheme = .defaultForWriting

    @OptionGroup var legacy: LegacySchemeOption

    /// `--legacy-scheme`, nil for both readings.
    var legacyScheme: LegacyScheme? { legacy.legacyScheme }

    func validate() throws {
        if toScheme.row.message != .whole {
            throw ValidationError("--to-scheme \(toScheme) is not supported: use \(Scheme.defaultForWriting)")
        }
        if onError == .marker {
            throw ValidationError("rekey keeps a message it cannot decrypt: --on-error passthrough or fail")
        }
        try failures.validate(with: onError.rawValue)
    }

    /// The rekeying the options ask for, from the old keys of `keys`.
    /// With `channels`, the template of their rekeying (its old keys, any channel's, are not used).
    func make(_ keys: KeyOptions, channels: RecordChannels? = nil, input: Input) throws -> MessageRekey {
        let reading = ReadPolicy(scheme: nil, legacyScheme: legacyScheme?.scheme)
        return try MessageRekey(from: try channels?.anyRing ?? keys.ring(input: input), reading: reading,
                                to: try toKey.resolve(), scheme: toScheme)
    }

    /// After the output: the summary line on standard error, then exit 1 when messages were left unchanged
    /// (unless `--allow-failures`).
    /// `byReason` (line mode): the statuses counted by reason (`StatusReport.byReason`).
    func finish(rekeyed: Int, unchanged: Int, alreadyNew: Int, of total: Int, byReason: String = "") throws {
        let text = "pncrypt: rekeyed \(rekeyed), unchanged \(unchanged) (not decryptable), already new \(alreadyNew)"
            + byReason + "\n"
        try FileDescriptor.standardError.writeAll(Array(text.utf8), naming: "standard error")
        try failures.check(failed: unchanged, of: total, "message", "rekeyed")
    }
}
