import ArgumentParser
import PNCrypt
import PNCryptPlatform
import PNCryptFiles
import SystemPackage

/// `--only-channel` of the rekey commands: move one channel's messages, copy the others as they are.
struct OnlyChannelOption: ParsableArguments {
    @Option(name: .customLong("only-channel"), help: ArgumentHelp("""
        With --channel-key-file: move only the messages of this channel (its exact name; repeatable) to the new \
        key; every other message is copied byte for byte, not read (its channel needs no key) and not counted.
        """, valueName: "name"))
    var onlyChannel: [String] = []
}
