// The header's envelope functions: whole history and subscribe responses.
import PNCrypt
import PNCryptFiles
import PNCryptPlatform

@_cdecl("pncrypt_envelope_decrypt")
public func pncrypt_envelope_decrypt(_ module: OpaquePointer?, _ format: UnsafePointer<CChar>?,
                                     _ json: UnsafePointer<CChar>?, _ len: Int, _ policy: Int32,
                                     _ jsonOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                     _ statusesOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                     _ status: UnsafeMutableRawPointer?) -> Int32 {
    var failure: CFailure?
    // Every output is NULL first, whichever argument is refused (the header's convention).
    statusesOut?.pointee = nil
    let code = guarded(status, holding: module) {
        let out = try outputArgument(jsonOut, "json_out")
        guard policy == policyMarker || policy == policyPassThrough || policy == policyFail else {
            throw CFailure.argument("unknown policy \(policy) (PNCRYPT_ON_ERROR_MARKER, _PASSTHROUGH or _FAIL)")
        }
        let formats = try envelopeFormats(format)
        // FAIL reads as the marker policy does (a non-string is a failure), then returns the first failure.
        var result = try withJSONArgument(json, len, "json") { input in
            try CModule.with(module) {
                try $0.messages.decrypt(envelopeText: input, formats: formats,
                                        policy: policy == policyPassThrough ? .passThrough : .marker)
            }
        }
        defer { wipe(&result.text) }
        if let first = result.statuses.first {
            let located = CFailure(first.error).located(first)
            if policy == policyFail { throw located }
            failure = located
        }
        result.text.append(0)
        out.pointee = try CBuffer.copy(result.text).assumingMemoryBound(to: CChar.self)
        if let statusesOut, !result.statuses.isEmpty {
            var lines: [UInt8] = []
            for status in result.statuses { lines += status.json.serialized() + [0x0A] }
            try fillSecond(after: out) {
                statusesOut.pointee = try CBuffer.copy(lines + [0]).assumingMemoryBound(to: CChar.self)
            }
        }
    }
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}

/// Runs `body`, which fills a second output after `first` was filled; when it throws, `first` is freed and set to
/// NULL (a failed call returns no buffer).
func fillSecond(after first: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
                        _ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        CBuffer.free(first.pointee.map { UnsafeMutableRawPointer($0) })
        first.pointee = nil
        throw error
    }
}

/// The formats a `format` argument names: NULL any, "history" v2 or v3, else one format by name.
func envelopeFormats(_ format: UnsafePointer<CChar>?) throws -> [EnvelopeFormat] {
    guard let format else { return EnvelopeFormat.allCases }
    let name = try stringArgument(format, "format")
    if name == "history" { return EnvelopeFormat.history }
    guard let one = EnvelopeFormat(rawValue: name) else {
        throw CFailure.argument("unknown format '\(name)' (NULL, \"history\", \"v2\", \"v3\" or \"subscribe\")")
    }
    return [one]
}

extension CFailure {
    /// The failure of one message of a response, its message starting with where the message is.
    func located(_ status: MessageStatus) -> CFailure {
        var place = "message \(status.index ?? 0)"
        if let channel = status.channel { place += " of channel \(JSONValue.string(channel))" }
        return CFailure(code, "\(place): \(message)")
    }
}
