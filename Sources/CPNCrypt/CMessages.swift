// The header's message functions: JSON messages as the SDKs publish and receive them.
import PNCrypt
import PNCryptFiles
import PNCryptPlatform

@_cdecl("pncrypt_message_encrypt")
public func pncrypt_message_encrypt(_ module: CModuleHandle, _ json: CText, _ len: Int, _ jsonOut: CTextOut,
                                    _ err: CErrorOut) -> Int32 {
    guarded(err, holding: module) {
        let out = try outputArgument(jsonOut, "json_out")
        let sealed = try withJSONArgument(json, len, "json") { input in
            try CModule.with(module) { try $0.messages.encrypt(jsonText: input) }
        }
        out.pointee = try CBuffer.copy(serializing: sealed, secret: false).assumingMemoryBound(to: CChar.self)
    }
}

@_cdecl("pncrypt_message_encrypt_style")
public func pncrypt_message_encrypt_style(_ module: CModuleHandle, _ style: CText, _ json: CText, _ len: Int,
                                          _ jsonOut: CTextOut, _ err: CErrorOut) -> Int32 {
    guarded(err, holding: module) {
        let out = try outputArgument(jsonOut, "json_out")
        // As `pncrypt message encrypt --style`: the message is parsed and written again in the style.
        let name = try stringArgument(style, "style")
        guard let style = JSONStyle(rawValue: name) else {
            let names = JSONStyle.allCases.map(\.rawValue).joined(separator: ", ")
            throw CFailure.argument("unknown style '\(name.prefix(40))' (known: \(names))")
        }
        let sealed = try withJSONArgument(json, len, "json") { input in
            try CModule.with(module) { module in
                var crypto = module.messages
                crypto.style = style
                return try crypto.encrypt(try JSONValue(parsing: input))
            }
        }
        out.pointee = try CBuffer.copy(serializing: sealed, secret: false).assumingMemoryBound(to: CChar.self)
    }
}

/// `PNCRYPT_ON_ERROR_MARKER`, `_PASSTHROUGH`, `_FAIL`, `_DEFAULT` (the record calls: the library's default).
let policyMarker: Int32 = 0
let policyPassThrough: Int32 = 1
let policyFail: Int32 = 2
let policyDefault: Int32 = 3

@_cdecl("pncrypt_message_decrypt")
public func pncrypt_message_decrypt(_ module: CModuleHandle, _ json: CText, _ len: Int, _ policy: Int32,
                                    _ jsonOut: CTextOut, _ status: CErrorOut) -> Int32 {
    messageDecrypt(module, json, len, policy, jsonOut, statusJSONOut: nil, withStatus: false, status)
}

@_cdecl("pncrypt_message_decrypt_status")
public func pncrypt_message_decrypt_status(_ module: CModuleHandle, _ json: CText, _ len: Int, _ policy: Int32,
                                           _ jsonOut: CTextOut, _ statusJSONOut: CTextOut,
                                           _ status: CErrorOut) -> Int32 {
    messageDecrypt(module, json, len, policy, jsonOut, statusJSONOut: statusJSONOut, withStatus: true, status)
}

/// `pncrypt_message_decrypt`, and `withStatus` its `_status` form: `statusJSONOut` (required) receives the status's
/// JSON (`MessageStatus.json`, the one status form) for a message delivered with a failure, else NULL.
func messageDecrypt(_ module: CModuleHandle, _ json: CText, _ len: Int, _ policy: Int32, _ jsonOut: CTextOut,
                    statusJSONOut: CTextOut, withStatus: Bool, _ status: CErrorOut) -> Int32 {
    // Every output is NULL first, whichever argument is refused (the header's convention).
    statusJSONOut?.pointee = nil
    return guardedDelivering(status, holding: module) {
        var failure: CFailure?
        let out = try outputArgument(jsonOut, "json_out")
        let statusOut = withStatus ? try outputArgument(statusJSONOut, "status_json_out") : nil
        guard policy == policyMarker || policy == policyPassThrough || policy == policyFail else {
            throw CFailure.argument("unknown policy \(policy) (PNCRYPT_ON_ERROR_MARKER, _PASSTHROUGH or _FAIL)")
        }
        // The library's one front: the usual message (a string literal that decrypts) straight to its compact
        // text, with no value made; anything else the full way, which gives the same text. FAIL reads as the marker
        // policy does (a non-string is a failure), then returns the failure.
        var made: UnsafeMutableRawPointer?
        let delivered = try withJSONArgument(json, len, "json") { input in
            try CModule.with(module) {
                try $0.messages.deliver(jsonText: UnsafeRawBufferPointer(input), style: .compact,
                                        policy: policy == policyPassThrough ? .passThrough : .marker,
                                        original: .inStyle, bareBase64: false) { made = CBuffer.make($0) }
            }
        }
        guard let made else { throw CFailure(ErrorCodes.noMemory, "out of memory") }
        if let status = delivered {
            if policy == policyFail {
                CBuffer.free(made)
                throw CFailure(status.error)
            }
            // Delivered with a decryption failure: the call succeeds, the status says why the message is not plaintext.
            failure = CFailure(status.error)
        }
        out.pointee = made.assumingMemoryBound(to: CChar.self)
        if let statusOut, let status = delivered {
            // The original message is in the status: wiped on free, as the delivered message is.
            try fillSecond(after: out) {
                statusOut.pointee = try CBuffer.copy(serializing: status.json, secret: true)
                    .assumingMemoryBound(to: CChar.self)
            }
        }
        return failure
    }
}
