// The C entry points of include/pncrypt.h for records read with their channel's keys (`pncrypt_field_*_channels`,
// "Per-channel keys"): the record calls of CField.swift with a `pncrypt_channel_keys` map instead of a module, each
// record's message read only with the keys of the channel the record names (`ChannelKeys.decrypt(field:of:...)`,
// `rekey(field:of:...)`), as `pncrypt message decrypt|rekey --field POINTER --channel-key-file C=PATH` reads them.
import PNCrypt
import PNCryptPlatform

/// The `channel_pointer` argument: NULL for `/channel`, else a JSON Pointer (as `pointer`).
private func channelFieldArgument(_ pointer: CText) throws -> JSONPointer {
    guard let pointer else { return .channel }
    do {
        return try pointerArgument(pointer)
    } catch let failure as CFailure {
        throw CFailure.argument("channel_" + failure.message)
    }
}

/// The reading of a map's channels, as `pncrypt_envelope_decrypt_channels` reads (the module's keys not used).
private func recordReading(_ map: CChannelKeys) throws -> ChannelReading {
    let keys = try map.channelKeys()
    return RecordChannels(keys).reading(MessageCrypto(keys: keys.rings.first!.value))
}

/// The rekeying of a map's channels to `to`'s key and scheme.
private func recordRekeying(_ map: CChannelKeys, to: CModuleHandle) throws -> ChannelRekey {
    let (key, scheme) = try CModule.with(to) { ($0.key, $0.scheme) }
    return try ChannelRekey(try map.channelKeys(), v2Channel: nil, reading: .rule, to: key, scheme: scheme, only: nil)
}

@_cdecl("pncrypt_field_decrypt_channels")
public func pncrypt_field_decrypt_channels(_ map: OpaquePointer?, _ pointer: CText, _ channelPointer: CText,
                                           _ json: CText, _ len: Int, _ policy: Int32, _ jsonOut: CTextOut,
                                           _ statusJSONOut: CTextOut, _ status: CErrorOut) -> Int32 {
    fieldDecryptCall(status, holding: nil, pointer, json, len, policy, jsonOut, statusJSONOut) { field, input, how in
        let channelField = try channelFieldArgument(channelPointer)
        // The text argument's checks come before the map's (a map with no keys is not the first thing wrong).
        let reading = try argumentsFirst(json, len, "json") { try withChannelKeys(map) { try recordReading($0) } }
        return try reading.decrypt(field: field, of: input, channelField: channelField, policy: how)
    }
}

@_cdecl("pncrypt_field_rekey_channels")
public func pncrypt_field_rekey_channels(_ map: OpaquePointer?, _ to: CModuleHandle, _ pointer: CText,
                                         _ channelPointer: CText, _ json: CText, _ len: Int, _ jsonOut: CTextOut,
                                         _ outcome: UnsafeMutablePointer<Int32>?, _ err: CErrorOut) -> Int32 {
    fieldRekeyCall(err, holding: to, nil, pointer, json, len, jsonOut, outcome) {
        let channelField = try channelFieldArgument(channelPointer)
        let moving = try withChannelKeys(map) { try recordRekeying($0, to: to) }
        return { field, record in moving.rekey(field: field, of: record, channelField: channelField) }
    }
}

@_cdecl("pncrypt_field_decrypt_channels_many")
public func pncrypt_field_decrypt_channels_many(_ map: OpaquePointer?, _ pointer: CText, _ channelPointer: CText,
                                                _ data: CText, _ dataLen: Int, _ lengths: CLengths, _ count: Int,
                                                _ policy: Int32, _ out: CTextOut, _ offsets: COffsets,
                                                _ codes: CCodes, _ status: CErrorOut) -> Int32 {
    fieldBatchCall(status, holding: nil, field: pointer, items: data, dataLen, lengths, count, out, offsets,
                   codes) { field in
        let how = try fieldPolicyArgument(policy, allowFail: false)
        let channelField = try channelFieldArgument(channelPointer)
        let reading = try withChannelKeys(map) { try recordReading($0) }
        return decryptItems { (record) throws(PNCryptError) in
            try reading.decrypt(field: field, of: record, channelField: channelField, policy: how)
        }
    }
}

@_cdecl("pncrypt_field_rekey_channels_many")
public func pncrypt_field_rekey_channels_many(_ map: OpaquePointer?, _ to: CModuleHandle, _ pointer: CText,
                                              _ channelPointer: CText, _ data: CText, _ dataLen: Int,
                                              _ lengths: CLengths, _ count: Int, _ out: CTextOut,
                                              _ offsets: COffsets, _ outcomes: UnsafeMutablePointer<Int32>?,
                                              _ codes: CCodes, _ status: CErrorOut) -> Int32 {
    fieldBatchCall(status, holding: to, field: pointer, items: data, dataLen, lengths, count, out, offsets,
                   codes, missing: outcomes == nil ? "outcomes" : nil) { field in
        let channelField = try channelFieldArgument(channelPointer)
        let moving = try withChannelKeys(map) { try recordRekeying($0, to: to) }
        return rekeyItems(outcomes!) { record in  // not NULL: checked as `missing`
            moving.rekey(field: field, of: record, channelField: channelField)
        }
    }
}
