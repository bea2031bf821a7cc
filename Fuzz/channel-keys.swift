// Fuzz target: channel patterns and `--channel-key-file CHANNEL=PATH` specs (`ChannelKeys`).
//
// Input: lines. Up to the first empty line, specs `PATTERN=KEY`: the pattern ends at the first `=`, as
// `--channel-key-file` reads CHANNEL (the key text stands for the file's key). After it, the channel names of a
// subscribe response, one a line.
//
// Invariants, on bytes (PubNub channel names are bytes; two names that only Unicode calls equivalent are two
// channels): a pattern is refused exactly when it is empty or has a `*` byte before its last byte, and
// `ChannelKeys` is made exactly when every pattern is accepted; a channel is read with the keys of the pattern of its
// own bytes (not ending in `*`), else of the longest `name*` whose name its bytes start with, else of none. In a
// response, each message is decrypted exactly when its channel has keys and it was encrypted with one of them; every
// other message has a status with its index and channel (`invalidKey` when the channel has no keys).
import PNCrypt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = input.split(separator: 0x0A, omittingEmptySubsequences: false)
    let specEnd = lines.firstIndex(where: \.isEmpty) ?? lines.count
    var keyTexts: [String: [String]] = [:]
    var refused = false
    for spec in lines[..<specEnd] {
        guard let equals = spec.firstIndex(of: UInt8(ascii: "=")) else { continue }
        let pattern = String(decoding: spec[..<equals], as: UTF8.self)
        let key = String(decoding: spec[(equals + 1)...], as: UTF8.self)
        let problem = ChannelKeys.problem(pattern)
        let bytes = Array(pattern.utf8)
        let expected = bytes.isEmpty || bytes.dropLast().contains(UInt8(ascii: "*"))
        guard (problem != nil) == expected else {
            fail("pattern \(bytes): \(problem ?? "accepted"), expected \(expected ? "a refusal" : "no problem")", input)
        }
        if let problem, problem.isEmpty || problem.contains("\n") { fail("a refusal is not one line", input) }
        refused = refused || expected
        guard !key.isEmpty, (try? CipherKey(key)) != nil else { continue }
        // Each key once per pattern (KeyRing refuses a key given twice, as the command does).
        if keyTexts[pattern]?.contains(where: { $0.utf8.elementsEqual(key.utf8) }) != true {
            keyTexts[pattern, default: []].append(key)
        }
    }
    var rings: [String: KeyRing] = [:]
    for (pattern, keys) in keyTexts {
        guard let ring = try? KeyRing(keys) else { fail("a ring of distinct keys was refused", input) }
        rings[pattern] = ring
    }
    let made = attempt { () throws(PNCryptError) in try ChannelKeys(rings) }
    let channelKeys: ChannelKeys
    switch made {
    case .failure(let error):
        guard rings.isEmpty || refused else { fail("ChannelKeys refused accepted patterns: \(error)", input) }
        check(error, allowed: [.invalidValue], inputCount: input.count, input, context: "ChannelKeys")
        return 0
    case .success(let value):
        guard !rings.isEmpty, !rings.keys.contains(where: { ChannelKeys.problem($0) != nil }) else {
            fail("ChannelKeys accepted a refused pattern", input)
        }
        channelKeys = value
    }

    // The channels of a subscribe response (presence channels carry no encrypted message: left out).
    let channels = lines[min(lines.count, specEnd + 1)...].prefix(16)
        .map { String(decoding: $0, as: UTF8.self) }.filter { !$0.utf8.contains(0x0D) && !$0.contains("-pnpres") }
    var items: [JSONValue] = []
    var readable: [Bool] = []
    let outsider = try! CipherKey("outsider\nkey")   // no spec line can hold a line break
    for (index, channel) in channels.enumerated() {
        let pattern = expectedPattern(channel, rings.keys)
        let got = channelKeys.pattern(forChannel: channel)
        guard got?.utf8.elementsEqual(pattern?.utf8 ?? "".utf8) ?? (pattern == nil) else {
            fail("channel \(Array(channel.utf8)) read with pattern \(got.map { Array($0.utf8) } ?? []), expected "
                 + "\(pattern.map { Array($0.utf8) } ?? [])", input)
        }
        guard (channelKeys.keys(forChannel: channel) == nil) == (pattern == nil) else {
            fail("keys(forChannel:) disagrees with pattern(forChannel:)", input)
        }
        // Even messages under the first key of their channel's ring, odd ones under a key of no ring.
        let own = pattern.map { rings[$0]!.keys[0] }
        let key = index % 2 == 0 ? own ?? outsider : outsider
        readable.append(index % 2 == 0 && own != nil)
        guard let wire = try? MessageCrypto(keys: KeyRing(keys: [key]), scheme: .legacy).encrypt(.string("m\(index)"))
        else { fail("encrypting a message failed", input) }
        items.append(["c": .string(channel), "d": wire])
    }
    let response: JSONValue = ["t": ["t": "17000000000000000", "r": 1], "m": .array(items)]
    guard let envelope = try? Envelope(response, formats: [.subscribe]) else { fail("the response is refused", input) }
    let result = channelKeys.decrypt(envelope: envelope, policy: .passThrough)
    guard result.messages == channels.count else { fail("\(result.messages) messages of \(channels.count)", input) }
    var failed = Set<Int>()
    for status in result.statuses {
        guard let index = status.index, index >= 0, index < channels.count, failed.insert(index).inserted else {
            fail("a status without a message of its own: \(status.error)", input)
        }
        guard status.channel?.utf8.elementsEqual(channels[index].utf8) == true else {
            fail("the status of message \(index) names another channel", input)
        }
        if expectedPattern(channels[index], rings.keys) == nil && status.error.code != .invalidKey {
            fail("a channel without keys failed with \(status.error.code)", input)
        }
    }
    for index in channels.indices where failed.contains(index) == readable[index] {
        fail("message \(index) of channel \(Array(channels[index].utf8)): "
             + (readable[index] ? "not decrypted with its channel's key" : "decrypted without its channel's key"),
             input)
    }
    return 0
}

/// The pattern whose keys read `channel`, on bytes: the pattern of its own bytes (not ending in `*`), else the
/// longest `name*` whose name starts its bytes, else nil.
func expectedPattern(_ channel: String, _ patterns: Dictionary<String, KeyRing>.Keys) -> String? {
    let star = UInt8(ascii: "*")
    if let own = patterns.first(where: { $0.utf8.elementsEqual(channel.utf8) }), own.utf8.last != star {
        return own
    }
    return patterns.filter { $0.utf8.last == star && channel.utf8.starts(with: $0.utf8.dropLast()) }
        .max { $0.utf8.count < $1.utf8.count }
}
