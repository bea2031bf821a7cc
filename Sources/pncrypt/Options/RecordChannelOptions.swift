import ArgumentParser
import PNCrypt

/// `--channel-key-file CHANNEL=PATH` and `--channel-field POINTER` of `message decrypt|rekey --field POINTER`: each
/// record of an export read only with the keys of the record's own channel (`RecordChannels`), as the envelope
/// commands read each message of a response.
struct RecordChannelOptions: ParsableArguments {
    @OptionGroup var files: ChannelKeyOptions

    /// `--channel-key-file`'s arguments.
    var channelKeyFile: [String] { files.channelKeyFile }

    @Option(name: .customLong("channel-field"), help: ArgumentHelp("""
        With --channel-key-file: where each record names its channel (an RFC 6901 JSON Pointer; default \
        /channel, as in an export). A record without it, or where it is not a JSON string, is not read (a status \
        line naming the pointer; without --lines, exit 65).
        """, valueName: "pointer"))
    var channelField: String?

    /// Refuses `--channel-field` without `--channel-key-file`, and an invalid pointer.
    func validate() throws {
        if channelField != nil && channelKeyFile.isEmpty {
            throw ValidationError("--channel-field goes with --channel-key-file (add --channel-key-file CHANNEL=PATH"
                                  + " for each channel's key)")
        }
        _ = try pointer()
    }

    /// Refuses `--channel-key-file` without `--field` (the message's field of each record).
    func check(_ field: FieldOption) throws {
        if !channelKeyFile.isEmpty, try field.pointer() == nil {
            throw ValidationError("--channel-key-file reads each record with its channel's keys: add --field POINTER"
                                  + " (the message's field, --field /message in an export; a history or subscribe"
                                  + " response: pncrypt history|subscribe decrypt --channel-key-file)")
        }
    }

    /// `--channel-field`, `/channel` when not given.
    func pointer() throws -> JSONPointer {
        guard let channelField else { return .channel }
        do {
            return try JSONPointer(channelField)
        } catch {
            throw ValidationError("--channel-field: " + error.message)
        }
    }

    /// The channel keys and where each record names its channel, nil when no channel keys were given. Refuses
    /// `--key` and `--key-file` beside them.
    func resolve(_ keys: KeyOptions, input: Input) throws -> RecordChannels? {
        guard !channelKeyFile.isEmpty else { return nil }
        try ChannelKeyOptions.refuseOtherKeys(keys)
        return RecordChannels(try ChannelKeyOptions.channelKeys(channelKeyFile, input: input),
                              channelField: try pointer())
    }
}

extension RecordChannels {
    /// Any one channel's keys, for the template of a run's reading, whose keys are not used.
    var anyRing: KeyRing { keys.rings.first!.value }
}
