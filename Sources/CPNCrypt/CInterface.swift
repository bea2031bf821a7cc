// The C entry points of include/pncrypt.h, one file per section of the header: modules and memory here, then
// CBytes, CBatches, CRekey, CFiles, CMessages, CEnvelopes, CField (records), CChannelKeys (a key per channel); what
// they share is CArguments.swift (arguments), CBuffer.swift (buffers), CErrors.swift (failures), CGuarded.swift (one
// entry point run) and FileTransform.swift (the file functions' plumbing). Each one checks its arguments, calls the
// PNCrypt public API (the same calls the pncrypt CLI makes, so its formats and decryption rules hold here too), and
// hands results over in buffers from CBuffer. No Swift error and no nil pointer the caller can pass escapes as a
// crash.
import PNCrypt
import PNCryptFiles
import PNCryptPlatform

/// What a `pncrypt_module *` points to (retained by `pncrypt_module_new`, released by `pncrypt_module_free`).
/// Its one mutable part, the key ring, is behind a lock: `pncrypt_module_add_key` replaces it, every other call reads
/// it, so one module serves any number of threads (the header still asks for keys to be added before sharing).
final class CModule: Sendable {
    /// The key the module encrypts with (its derived AES keys are wiped when the last reference goes).
    let key: CipherKey
    /// The scheme the module encrypts with.
    let scheme: Scheme
    /// Bytes <-> Base64 in `scheme`.
    let crypto: CryptoModule
    /// The ring and the messages read with it, replaced together by `add` under the lock.
    private let keys: Locked<(ring: KeyRing, messages: MessageCrypto)>
    /// Every key as `FailureHint` takes it (`cipher_key`, then `key #2`...), for the hint a decryption failure
    /// carries (`CFailure.hinted(by:)`).
    private let hintKeys: Locked<[FailureHint.Key]>
    /// The keys' hint (`FailureHint.keys`), nil when no key has an unusual shape.
    var keyHint: String? { FailureHint.keys(hintKeys.withLock { $0 }) }
    /// Every key of the module, `key` first: decryption goes through the ring (the library's one procedure).
    var ring: KeyRing { keys.withLock { $0.ring } }
    /// Messages in `scheme`, read with every key and, headerless, both legacy readings (see `legacy`).
    var messages: MessageCrypto { keys.withLock { $0.messages } }
    /// How `auto` reads data without a PNED header: nil tries legacy and legacy-random-iv both (exactly one
    /// reading must qualify); a legacy33 module reads it as legacy33, its own format.
    let legacy: Scheme?
    /// The legacy file format of headerless files: fixed IV for a legacy module (what its encrypt_file writes), the
    /// random-IV format for a legacy-random-iv module, else nil: the headerless rule for files.
    let fileLegacy: Scheme?

    init(key: CipherKey, scheme: Scheme, namesFile: Bool = false) throws(PNCryptError) {
        hintKeys = Locked([FailureHint.Key(key, source: "cipher_key", namesFile: namesFile)])
        self.key = key
        self.scheme = scheme
        crypto = CryptoModule(key: key, scheme: scheme)
        let ring = try KeyRing(keys: [key])
        legacy = scheme.headerlessMessageReading
        fileLegacy = scheme.headerlessFileFormat
        keys = Locked((ring, MessageCrypto(keys: ring, scheme: scheme)))
    }

    /// What the message calls require of a plaintext (`pncrypt_module_set_plaintext`).
    func set(plaintext: PlaintextRule) {
        keys.withLock { $0.messages.plaintext = plaintext }
    }

    /// Adds a key tried on decryption (never used to encrypt); `namesFile`: its text also names a file.
    func add(_ extra: CipherKey, namesFile: Bool = false) throws {
        try keys.withLock { keys in
            Result { () throws -> Void in
                guard !keys.ring.keys.contains(where: { $0.isSame(as: extra) }) else {
                    throw CFailure.argument("the key is already in the module (a key given twice makes every"
                                            + " reading ambiguous)")
                }
                let ring = try KeyRing(keys: keys.ring.keys + [extra])
                var messages = MessageCrypto(keys: ring, scheme: scheme, reading: keys.messages.reading)
                messages.plaintext = keys.messages.plaintext
                keys = (ring, messages)
                hintKeys.withLock { $0.append(FailureHint.Key(extra, source: "key #\(ring.keys.count)",
                                                              namesFile: namesFile)) }
            }
        }.get()
    }

    /// Sets how messages are read (`pncrypt_module_set_reading`): `reading` for every message call.
    func readMessages(_ reading: ReadPolicy) {
        keys.withLock { $0.messages.reading = reading }
    }

    /// A reference to the module a C caller passes, taken for the length of one call (nil for NULL): a
    /// `pncrypt_module_free` while the call runs releases the caller's reference only, and the module (its keys
    /// wiped) goes when the last call holding it returns. Every entry point that takes a module holds it
    /// (`guarded(_:holding:_:_:)`): one atomic increment and decrement per call.
    static func hold(_ pointer: OpaquePointer?) -> Unmanaged<CModule>? {
        guard let pointer else { return nil }
        return Unmanaged<CModule>.fromOpaque(UnsafeRawPointer(pointer)).retain()
    }

    static func from(_ pointer: OpaquePointer?) throws -> CModule {
        try unmanaged(pointer).takeUnretainedValue()
    }

    /// Runs `body` with the module, without retaining it again: the entry point's hold (`guarded(_:holding:_:_:)`)
    /// keeps it alive for the call.
    static func with<R>(_ pointer: OpaquePointer?, _ body: (CModule) throws -> R) throws -> R {
        try unmanaged(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// The module a C caller passes, refused when NULL.
    private static func unmanaged(_ pointer: OpaquePointer?) throws -> Unmanaged<CModule> {
        guard let pointer else { throw CFailure.argument("the module is NULL") }
        return Unmanaged<CModule>.fromOpaque(UnsafeRawPointer(pointer))
    }
}

/// `PNCryptVersion.string` as a C string: made once, never freed (the caller gets static storage).
nonisolated(unsafe) private let versionText = UnsafePointer<CChar>(strdup(PNCryptVersion.string)!)

@_cdecl("pncrypt_version")
public func pncrypt_version() -> UnsafePointer<CChar> { versionText }

@_cdecl("pncrypt_version_number")
public func pncrypt_version_number() -> UInt32 {
    UInt32(PNCryptVersion.major * 10000 + PNCryptVersion.minor * 100 + PNCryptVersion.patch)
}


// MARK: Modules

@_cdecl("pncrypt_module_new")
public func pncrypt_module_new(_ cipherKey: CText, _ scheme: CText, _ out: UnsafeMutablePointer<OpaquePointer?>?,
                               _ err: CErrorOut) -> Int32 {
    guarded(err) {
        let out = try outputArgument(out, "out")
        // The scheme first: an unknown scheme is an argument error, which comes before the key's (invalidKey).
        let scheme = try schemeArgument(scheme, default: .defaultForWriting, allowAuto: false) ?? .defaultForWriting
        let key = try keyArgument(cipherKey, "cipher_key")
        let module = try CModule(key: key, scheme: scheme, namesFile: namesFile(cipherKey))
        out.pointee = OpaquePointer(Unmanaged.passRetained(module).toOpaque())
    }
}

@_cdecl("pncrypt_module_add_key")
public func pncrypt_module_add_key(_ module: CModuleHandle, _ cipherKey: CText, _ err: CErrorOut) -> Int32 {
    guarded(err, holding: module) {
        let module = try CModule.from(module)
        try module.add(try keyArgument(cipherKey, "key"), namesFile: namesFile(cipherKey))
    }
}

/// Whether a key argument (already checked) also names an existing file, for the key hint.
private func namesFile(_ key: CText) -> Bool {
    guard let key else { return false }
    return InputFiles.namesRegularFile(Array(UnsafeRawBufferPointer(start: key, count: strlen(key))))
}

@_cdecl("pncrypt_module_set_plaintext")
public func pncrypt_module_set_plaintext(_ module: CModuleHandle, _ plaintext: CText, _ err: CErrorOut) -> Int32 {
    guarded(err, holding: module) {
        let module = try CModule.from(module)
        let name = try stringArgument(plaintext, "plaintext")
        guard let rule = PlaintextRule(rawValue: name) else {
            throw CFailure.argument("unknown plaintext '\(name.prefix(40))' (known: "
                                    + PlaintextRule.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        module.set(plaintext: rule)
    }
}

@_cdecl("pncrypt_module_set_reading")
public func pncrypt_module_set_reading(_ module: CModuleHandle, _ scheme: CText, _ err: CErrorOut) -> Int32 {
    guarded(err, holding: module) {
        let module = try CModule.from(module)
        module.readMessages(try readingArgument(scheme, legacy: nil))
    }
}

/// Releases the caller's reference: a call running on the module holds its own (`CModule.hold`), so the module
/// and its keys go when the last of them returns.
@_cdecl("pncrypt_module_free")
public func pncrypt_module_free(_ module: CModuleHandle) {
    guard let module else { return }
    Unmanaged<CModule>.fromOpaque(UnsafeRawPointer(module)).release()
}

// MARK: Memory

@_cdecl("pncrypt_free")
public func pncrypt_free(_ buffer: UnsafeMutableRawPointer?) {
    CBuffer.free(buffer)
}
