// The C entry points of include/pncrypt.h for per-channel keys (`ChannelKeys`): a map from channel patterns to
// keys, and responses decrypted or moved to a new key with it, each message read only with its channel's keys.
import PNCrypt
import PNCryptPlatform

/// What a `pncrypt_channel_keys *` points to (retained by `pncrypt_channel_keys_new`, released by
/// `pncrypt_channel_keys_free`): each pattern's keys, copied from a module, behind a lock.
final class CChannelKeys: Sendable {
    let rings = Locked<[String: KeyRing]>([:])

    /// The map a C caller passes, held for the call (as `CModule.hold`); refused when NULL.
    static func hold(_ pointer: OpaquePointer?) throws -> Unmanaged<CChannelKeys> {
        guard let pointer else { throw CFailure.argument("the channel keys are NULL") }
        return Unmanaged<CChannelKeys>.fromOpaque(UnsafeRawPointer(pointer)).retain()
    }

    /// The map as the library's `ChannelKeys`.
    func channelKeys() throws -> ChannelKeys {
        try ChannelKeys(rings.withLock { $0 })
    }
}

/// Runs `body` with the map held for the call.
func withChannelKeys<R>(_ pointer: OpaquePointer?, _ body: (CChannelKeys) throws -> R) throws -> R {
    let held = try CChannelKeys.hold(pointer)
    defer { held.release() }
    return try body(held.takeUnretainedValue())
}

@_cdecl("pncrypt_channel_keys_new")
public func pncrypt_channel_keys_new(_ out: UnsafeMutablePointer<OpaquePointer?>?,
                                     _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err) {
        let out = try outputArgument(out, "out")
        out.pointee = OpaquePointer(Unmanaged.passRetained(CChannelKeys()).toOpaque())
    }
}

@_cdecl("pncrypt_channel_keys_add")
public func pncrypt_channel_keys_add(_ map: OpaquePointer?, _ pattern: UnsafePointer<CChar>?,
                                     _ module: OpaquePointer?, _ err: UnsafeMutableRawPointer?) -> Int32 {
    guarded(err, holding: module) {
        try withChannelKeys(map) { map in
            let pattern = try stringArgument(pattern, "pattern")
            if let problem = ChannelKeys.problem(pattern) { throw CFailure.argument(problem) }
            let ring = try CModule.with(module) { $0.ring }
            try map.rings.withLock { rings in
                Result { () throws -> Void in
                    guard rings[pattern] == nil else {
                        throw CFailure.argument("the pattern \(JSONValue.string(pattern)) already has keys (add"
                                                + " every key of a channel to one module: pncrypt_module_add_key)")
                    }
                    rings[pattern] = ring
                }
            }.get()
        }
    }
}

@_cdecl("pncrypt_channel_keys_free")
public func pncrypt_channel_keys_free(_ map: OpaquePointer?) {
    guard let map else { return }
    Unmanaged<CChannelKeys>.fromOpaque(UnsafeRawPointer(map)).release()
}

/// Refuses a v2 response without `channel` and a v3 or subscribe one with it.
private func checkChannel(_ format: EnvelopeFormat, _ channel: String?) throws {
    if format == .v2 && channel == nil {
        throw CFailure.argument("a history (v2) response does not name its channel: pass it as `channel`")
    }
    if format != .v2 && channel != nil {
        throw CFailure.argument("`channel` names the channel of a v2 response; a \(format) response names its"
                                + " channels: pass NULL")
    }
}

/// The statuses as lines of JSON, NUL-terminated, into `out` (NULL when there are none); on failure `first` is
/// freed and set to NULL.
private func fillStatuses(_ statuses: [MessageStatus], _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                          after first: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) throws {
    guard let out, !statuses.isEmpty else { return }
    var lines: [UInt8] = []
    for status in statuses { lines += status.json.serialized() + [0x0A] }
    do {
        out.pointee = try CBuffer.copy(lines + [0]).assumingMemoryBound(to: CChar.self)
    } catch {
        CBuffer.free(first.pointee.map { UnsafeMutableRawPointer($0) })
        first.pointee = nil
        throw error
    }
}

@_cdecl("pncrypt_envelope_decrypt_channels")
public func pncrypt_envelope_decrypt_channels(_ map: OpaquePointer?, _ format: UnsafePointer<CChar>?,
                                              _ channel: UnsafePointer<CChar>?, _ json: UnsafePointer<CChar>?,
                                              _ len: Int, _ policy: Int32,
                                              _ jsonOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                              _ statusesOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                              _ status: UnsafeMutableRawPointer?) -> Int32 {
    var failure: CFailure?
    statusesOut?.pointee = nil
    let code = guarded(status) {
        let out = try outputArgument(jsonOut, "json_out")
        guard (0...2).contains(policy) else {
            throw CFailure.argument("unknown policy \(policy) (PNCRYPT_ON_ERROR_MARKER, _PASSTHROUGH or _FAIL)")
        }
        let formats = try envelopeFormats(format)
        let v2Channel = try channel.map { try stringArgument($0, "channel") }
        var result = try argumentsFirst(json, len, "json") { try withChannelKeys(map) { map in
            let keys = try map.channelKeys()
            let template = MessageCrypto(keys: keys.rings.first!.value)
            let reading = ChannelReading(keys, v2Channel: v2Channel, template: template)
            // FAIL reads as the marker policy does, then returns the first failure (as pncrypt_envelope_decrypt).
            return try withJSONArgument(json, len, "json") { input in
                try reading.decrypt(envelopeText: input, formats: formats, policy: policy == 1 ? .passThrough : .marker)
            }
        } }
        defer { wipe(&result.text) }
        try checkChannel(result.format, v2Channel)
        if let first = result.statuses.first {
            let located = CFailure(first.error).located(first)
            if policy == 2 { throw located }
            failure = located
        }
        result.text.append(0)
        out.pointee = try CBuffer.copy(result.text).assumingMemoryBound(to: CChar.self)
        try fillStatuses(result.statuses, statusesOut, after: out)
    }
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}

@_cdecl("pncrypt_envelope_rekey_channels")
public func pncrypt_envelope_rekey_channels(_ map: OpaquePointer?, _ format: UnsafePointer<CChar>?,
                                            _ channel: UnsafePointer<CChar>?, _ onlyChannel: UnsafePointer<CChar>?,
                                            _ to: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ len: Int,
                                            _ jsonOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                            _ statusesOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                            _ status: UnsafeMutableRawPointer?) -> Int32 {
    var failure: CFailure?
    statusesOut?.pointee = nil
    let code = guarded(status, holding: to) {
        let out = try outputArgument(jsonOut, "json_out")
        let formats = try envelopeFormats(format)
        let v2Channel = try channel.map { try stringArgument($0, "channel") }
        let only = try onlyChannel.map { try stringArgument($0, "only_channel") }
        let result = try argumentsFirst(json, len, "json") { try withChannelKeys(map) { map in
            let (key, scheme) = try CModule.with(to) { ($0.key, $0.scheme) }
            let moving = try ChannelRekey(try map.channelKeys(), v2Channel: v2Channel, reading: .rule, to: key,
                                          scheme: scheme, only: only.map { [$0] })
            let envelope = try withJSONArgument(json, len, "json") { try Envelope(parsing: $0, formats: formats) }
            try checkChannel(envelope.format, v2Channel)
            return moving.rekey(envelope: envelope)
        } }
        if let first = result.statuses.first { failure = CFailure(first.error).located(first) }
        out.pointee = try CBuffer.copy(result.envelope.json.serialized() + [0])
            .assumingMemoryBound(to: CChar.self)
        try fillStatuses(result.statuses, statusesOut, after: out)
    }
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}
