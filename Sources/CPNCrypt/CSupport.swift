// What the C entry points (CInterface.swift and one file per other section of the header) share: the
// `pncrypt_error` record, error codes, buffers handed to the caller (and results written straight into them),
// argument checks, and the POSIX file plumbing of the file functions. Every raw pointer of the C layer lives in
// these files. Nothing here knows a format: that is
// PNCrypt's.
import CPNCryptHeader
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

/// A failure of the C layer itself, or a PNCrypt error, as the C interface reports it.
struct CFailure: Error {
    let code: Int32
    let message: String

    init(_ code: Int32, _ message: String) {
        self.code = code
        self.message = message
    }

    init(_ error: PNCryptError) {
        let hint = !Decision.isHeaderlessPairAmbiguity(error) ? "" : Self.headerlessSchemeHint
        self.init(ErrorCodes.code(for: error), error.message + hint)
    }

    /// What a C caller does when the headerless rule cannot tell the two legacy readings of a text apart (the
    /// Python binding puts its own calls in place of these). As bytes the rule always decides.
    static let headerlessSchemeHint = " (scheme \"legacy\" or \"legacy-random-iv\")"

    /// What a C caller does when a text function's plaintext is binary: the bytes function of the same call (the
    /// Python binding puts `text=False` in its place).
    static let binaryPlaintextHint = " (read as text: a binary plaintext needs pncrypt_decrypt or pncrypt_decrypt_many)"

    /// A files-layer failure: a missing input is `PNCRYPT_E_FILE_NOT_FOUND`; an output that is not a regular file
    /// (or names the input file) `PNCRYPT_E_ARGUMENT`; anything else `PNCRYPT_E_IO`.
    init(_ error: FileError) {
        let code = switch error.kind {
        case .missing: ErrorCodes.fileNotFound
        case .sameAsInput, .notRegular: ErrorCodes.argument
        case .cannotOpen, .cannotCreate, .io: ErrorCodes.io
        }
        self.init(code, error.message)
    }

    static func argument(_ message: String) -> CFailure { CFailure(ErrorCodes.argument, message) }

    /// The one decryption failure with the hint of `module`'s keys (`FailureHint.keys`: a key's shape, a key that
    /// names a file), as the CLI's `hint:` line says it; any other failure as it is. The hint depends only on the
    /// keys, so every failure with them gets the same words.
    func hinted(by module: CModule?) -> CFailure {
        guard code == PNCRYPT_E_WRONG_KEY_OR_CORRUPT, let hint = module?.keyHint else { return self }
        return CFailure(code, message + "; hint: " + hint)
    }

    /// Any error an entry point's body can throw, as the C interface reports it.
    static func from(_ error: any Error) -> CFailure {
        switch error {
        case let failure as CFailure: return failure
        case let error as PNCryptError: return CFailure(error)
        default: return CFailure(ErrorCodes.internalError, "unexpected error: \(error)")
        }
    }

    /// The code of any error an entry point's body can throw, without making its message (a batch's failed items
    /// after the first).
    static func code(of error: any Error) -> Int32 {
        switch error {
        case let failure as CFailure: return failure.code
        case let error as PNCryptError: return ErrorCodes.code(for: error)
        default: return ErrorCodes.internalError
        }
    }

    /// This failure for item `index` of a batch: the message starts with "item N: ".
    func item(_ index: Int) -> CFailure { CFailure(code, "item \(index): \(message)") }
}

/// The C layer's error codes: `include/pncrypt.h`'s `PNCRYPT_E_` constants, imported from it (`CPNCryptHeader`), so
/// no number is written twice. (`PNCRYPT_E_INVALID_UTF8`, -23, is retired: a plaintext that is not UTF-8 is
/// `wrongKeyOrCorrupt`.)
enum ErrorCodes {
    // The C interface's own codes (not PNCryptError's), by shorter names.
    static var argument: Int32 { PNCRYPT_E_ARGUMENT }
    static var noMemory: Int32 { PNCRYPT_E_NOMEM }
    static var io: Int32 { PNCRYPT_E_IO }
    static var fileNotFound: Int32 { PNCRYPT_E_FILE_NOT_FOUND }
    static var internalError: Int32 { PNCRYPT_E_INTERNAL }

    /// The constant of a PNCryptError.
    static func code(for error: PNCryptError) -> Int32 { code(for: error.code.kind) }

    /// The constant of each code. No `default`: a code added to PNCryptError does not build until it is placed
    /// here (and, when it needs a new constant, in include/pncrypt.h).
    static func code(for kind: PNCryptError.Code.Kind) -> Int32 {
        switch kind {
        case .emptyPlaintext: return PNCRYPT_E_EMPTY_PLAINTEXT
        case .notEncryptable: return PNCRYPT_E_NOT_ENCRYPTABLE
        case .encryptionFailed: return PNCRYPT_E_ENCRYPTION_FAILED
        case .notBase64: return PNCRYPT_E_NOT_BASE64
        case .wrongKeyOrCorrupt: return PNCRYPT_E_WRONG_KEY_OR_CORRUPT
        case .ambiguous: return PNCRYPT_E_AMBIGUOUS
        case .malformedHeader: return PNCRYPT_E_MALFORMED_HEADER
        case .notEncrypted: return PNCRYPT_E_NOT_ENCRYPTED
        case .unknownCryptor: return PNCRYPT_E_UNKNOWN_CRYPTOR
        case .invalidKey: return PNCRYPT_E_INVALID_KEY
        case .invalidIV: return PNCRYPT_E_INVALID_IV
        case .invalidValue: return PNCRYPT_E_INVALID_VALUE
        case .invalidJSON: return PNCRYPT_E_INVALID_JSON
        case .jsonTooDeep: return PNCRYPT_E_JSON_TOO_DEEP
        case .corruptCompressedData: return PNCRYPT_E_CORRUPT_COMPRESSED
        case .outputLimitExceeded: return PNCRYPT_E_OUTPUT_LIMIT
        case .io: return PNCRYPT_E_IO
        case .fileNotFound: return PNCRYPT_E_FILE_NOT_FOUND
        }
    }
}

/// The caller's `pncrypt_error *`, the header's struct (`CPNCryptHeader`): its fields by name, never by offset.
struct ErrorRecord {
    let pointer: UnsafeMutablePointer<pncrypt_error>?

    /// The record at `err` (a `pncrypt_error *` from C, or NULL).
    init(pointer err: UnsafeMutableRawPointer?) {
        pointer = err?.bindMemory(to: pncrypt_error.self, capacity: 1)
    }

    /// The bytes `message` holds, its terminating NUL included.
    static let messageCapacity = MemoryLayout.size(ofValue: pncrypt_error().message)

    /// Code 0, empty message.
    func clear() {
        guard let pointer else { return }
        pointer.pointee.code = 0
        pointer.pointee.message.0 = 0
    }

    /// Stores `failure` and returns its code: one line, at most 255 bytes, cut on a UTF-8 character boundary.
    @discardableResult
    func set(_ failure: CFailure) -> Int32 {
        guard let pointer else { return failure.code }
        pointer.pointee.code = failure.code
        var bytes = Array(failure.message.utf8.prefix(Self.messageCapacity - 1))
        if bytes.count == Self.messageCapacity - 1 {
            // Drop a character cut in half (continuation bytes are 10xxxxxx).
            var end = bytes.count
            while end > 0 && bytes[end - 1] & 0xC0 == 0x80 { end -= 1 }
            if end > 0 && bytes[end - 1] >= 0xC0 { end -= 1 }
            let lead = end < bytes.count ? bytes[end] : 0
            let width = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if bytes.count - end < width { bytes.removeSubrange(end...) }
        }
        for i in bytes.indices where bytes[i] == 0x0A || bytes[i] == 0x0D { bytes[i] = 0x20 }
        bytes.append(0)
        withUnsafeMutableBytes(of: &pointer.pointee.message) { message in
            message.copyBytes(from: bytes)
        }
        return failure.code
    }
}

// MARK: The header's argument types, as every entry point spells them

/// `const char *`: a NUL-terminated string, or text or bytes with a length beside it.
public typealias CText = UnsafePointer<CChar>?
/// `char **`: where an entry point puts a text buffer it returns (freed with `pncrypt_free`).
public typealias CTextOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
/// `uint8_t **`: where an entry point puts a byte buffer it returns (freed with `pncrypt_free`).
public typealias CBytesOut = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
/// `pncrypt_error *`: the caller's error record (NULL: none).
public typealias CErrorOut = UnsafeMutableRawPointer?
/// `pncrypt_module *`: a module (`CModule`; NULL is refused).
public typealias CModuleHandle = OpaquePointer?
/// `const size_t *lengths`: a batch's item lengths (`BatchItems`).
public typealias CLengths = UnsafePointer<Int>?
/// `size_t *offsets`: where a batch's output says each item's output starts (count + 1 entries).
public typealias COffsets = UnsafeMutablePointer<Int>?
/// `int *codes`: a batch's code per item (NULL: the first failure fails the call).
public typealias CCodes = UnsafeMutablePointer<Int32>?

// MARK: Running an entry point

/// Runs one entry point: clears `err`, runs `body`, and turns any failure into its code and `err`.
func guarded(_ err: UnsafeMutableRawPointer?, _ body: () throws -> Void) -> Int32 {
    let record = ErrorRecord(pointer: err)
    record.clear()
    do {
        try body()
        return 0
    } catch {
        return record.set(CFailure.from(error))
    }
}

/// `guarded(_:_:)` for an entry point that takes modules: each (NULL aside) is held for the call
/// (`CModule.hold`), so that `pncrypt_module_free` in another thread during the call cannot free it under the call.
func guarded(_ err: UnsafeMutableRawPointer?, holding module: OpaquePointer?, _ other: OpaquePointer? = nil,
             _ body: () throws -> Void) -> Int32 {
    let first = CModule.hold(module)
    let second = CModule.hold(other)
    defer {
        first?.release()
        second?.release()
    }
    return guarded(err) {
        do {
            try body()
        } catch {
            throw CFailure.from(error).hinted(by: first?.takeUnretainedValue())
        }
    }
}

/// `guarded(_:holding:_:_:)` for an entry point that can succeed and still report a failure (a batch's first failed
/// item, a field or message delivered as its policy says): `body` returns it, and it is recorded in `status` only
/// when the call itself succeeded (code 0).
func guardedDelivering(_ status: CErrorOut, holding module: CModuleHandle, _ other: CModuleHandle = nil,
                       _ body: () throws -> CFailure?) -> Int32 {
    var failure: CFailure?
    let code = guarded(status, holding: module, other) {
        failure = try body()?.hinted(by: try? CModule.from(module))
    }
    if code == 0, let failure { ErrorRecord(pointer: status).set(failure) }
    return code
}

/// Buffers handed to the caller: `[size: Int][magic: Int][bytes...][NUL]`, so that `pncrypt_free` knows how
/// much to wipe. The caller sees the address of the bytes.
enum CBuffer {
    static let headerSize = 16
    static let magic = Int(bitPattern: 0x706E_6372_7970_7421)  // "pncrypt!"

    /// A buffer holding `bytes` and a NUL after them; nil when memory runs out.
    static func make(_ bytes: UnsafeRawBufferPointer) -> UnsafeMutableRawPointer? {
        let size = headerSize + bytes.count + 1
        guard let base = malloc(size) else { return nil }
        base.storeBytes(of: size, as: Int.self)
        base.storeBytes(of: magic, toByteOffset: 8, as: Int.self)
        let body = base + headerSize
        if let source = bytes.baseAddress { body.copyMemory(from: source, byteCount: bytes.count) }
        (body + bytes.count).storeBytes(of: 0, as: UInt8.self)
        return body
    }

    /// A buffer with room for `capacity` bytes and a NUL, for `filled` to fill; throws `PNCRYPT_E_NOMEM`. `free`
    /// wipes all of it, written or not.
    private static func allocate(_ capacity: Int) throws -> UnsafeMutableRawPointer {
        guard capacity >= 0, capacity <= Int.max - headerSize - 1, let base = malloc(headerSize + capacity + 1) else {
            throw CFailure(ErrorCodes.noMemory, "out of memory")
        }
        base.storeBytes(of: headerSize + capacity + 1, as: Int.self)
        base.storeBytes(of: magic, toByteOffset: 8, as: Int.self)
        return base + headerSize
    }

    /// A new buffer with room for `capacity` bytes that `body` writes, returning how many it wrote; a NUL goes
    /// after them. Returns the buffer and that count. If `body` throws, the buffer is wiped and freed and the
    /// error passes on.
    static func filled(capacity: Int, _ body: (UnsafeMutableRawPointer) throws -> Int) throws
        -> (buffer: UnsafeMutableRawPointer, count: Int) {
        let buffer = try allocate(capacity)
        do {
            let count = try body(buffer)
            (buffer + count).storeBytes(of: 0, as: UInt8.self)
            return (buffer, count)
        } catch {
            free(buffer)
            throw error
        }
    }

    /// Copies `bytes` into a new buffer, or throws `PNCRYPT_E_NOMEM`.
    static func copy(_ bytes: [UInt8]) throws -> UnsafeMutableRawPointer {
        guard let buffer = bytes.withUnsafeBytes({ make($0) }) else {
            throw CFailure(ErrorCodes.noMemory, "out of memory")
        }
        return buffer
    }

    /// The JSON text of `value` (compact) in a new buffer, written without an intermediate array (into stack
    /// scratch, wiped afterwards when the text is `secret`, then copied), or throws `PNCRYPT_E_NOMEM`.
    static func copy(serializing value: JSONValue, secret: Bool) throws -> UnsafeMutableRawPointer {
        guard let buffer = value.serializedCompact(secret: secret, { make($0) }) else {
            throw CFailure(ErrorCodes.noMemory, "out of memory")
        }
        return buffer
    }

    /// Wipes and frees a buffer made by `make`; ignores nil and pointers without the magic.
    static func free(_ body: UnsafeMutableRawPointer?) {
        guard let body else { return }
        let base = body - headerSize
        guard base.load(fromByteOffset: 8, as: Int.self) == magic else { return }
        let size = base.load(as: Int.self)
        PNCryptBase.wipe(base, count: size)
        release(base)
    }
}

/// The C library's `free` (the name is taken inside `CBuffer`).
private func release(_ pointer: UnsafeMutableRawPointer) { free(pointer) }

// MARK: Writing in place

// Results written straight into the buffers the C caller gets, so that a call through C costs no intermediate array
// or `String`, over the `package` API of the layers. Every pointer is the caller's, borrowed for one call; scratch
// memory comes from `withScratch` or the stack and never escapes the call; scratch that held plaintext is wiped
// before it is released.

extension CryptoModule {
    /// The length of the Base64 text `encrypt(_:)` makes of `count` bytes in this module's scheme (the C
    /// library sizes its output buffers with it).
    func base64Count(sealing count: Int) -> Int {
        Base64.encodedCount(Cryptor.sealedLength(count, scheme: scheme))
    }

    /// `encrypt(_:)` into the caller's memory: writes the Base64 text of `input` sealed in this module's scheme at
    /// `output`, which has room for `base64Count(sealing: input.count)` bytes, and returns that count.
    func encryptBase64(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer)
        throws(PNCryptError) -> Int {
        let scheme = self.scheme
        return try withScratch(Cryptor.sealedLength(input.count, scheme: scheme)) { (sealed) throws(PNCryptError) in
            let n = try ReadingCipher.seal(input, with: key, scheme: scheme, iv: nil, into: sealed.baseAddress!)
            Base64.encode(UnsafeRawBufferPointer(rebasing: sealed[0..<n]), into: output)
            return Base64.encodedCount(n)
        }
    }
}

extension JSONValue {
    /// Writes this value's compact JSON text (as `serialized()`) into stack scratch and returns what `copy` makes
    /// of it, without an intermediate array. With `secret` (plaintext), the scratch is wiped afterwards.
    func serializedCompact(secret: Bool, _ copy: (UnsafeRawBufferPointer) -> UnsafeMutableRawPointer?)
        -> UnsafeMutableRawPointer? {
        withUnsafeTemporaryAllocation(byteCount: JSONWriter.stackBytes, alignment: 16) { scratch in
            var writer = JSONWriter(style: .compact, output: ByteBuffer(startingIn: scratch, secret: secret))
            writer.write(self)
            return writer.output.withBytes(copy)
        }
    }
}

// MARK: Arguments

/// `len` bytes at `pointer`: NULL is allowed only with length 0; `size_t` values above `Int.max` arrive
/// negative and are refused.
func bytesArgument(_ pointer: UnsafeRawPointer?, _ count: Int, _ name: String) throws -> UnsafeRawBufferPointer {
    guard count >= 0 else { throw CFailure.argument("\(name): length too large") }
    guard count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    guard let pointer else { throw CFailure.argument("\(name) is NULL but its length is \(count)") }
    return UnsafeRawBufferPointer(start: pointer, count: count)
}

/// Text of `len` bytes: as `bytesArgument`, and a NUL byte inside means the length does not match the text.
func textArgument(_ pointer: UnsafeRawPointer?, _ count: Int, _ name: String) throws -> UnsafeRawBufferPointer {
    let bytes = try bytesArgument(pointer, count, name)
    if let base = bytes.baseAddress, memchr(base, 0, count) != nil {
        throw CFailure.argument("\(name) has a NUL byte inside its length: the length does not match the text")
    }
    return bytes
}

/// Runs `body`, which reads the text argument at `pointer` (`count` bytes), so that a bad argument is the call's
/// error whatever else is wrong (the header's conventions: argument checks come first): NULL with a length and a
/// length beyond any buffer before `body`; a NUL byte inside the text when `body` fails for another reason (a
/// legacy33 target, a map with no keys, ...), checked only then, so a call that succeeds makes no extra pass.
func argumentsFirst<R>(_ pointer: UnsafeRawPointer?, _ count: Int, _ name: String, _ body: () throws -> R)
    throws -> R {
    _ = try bytesArgument(pointer, count, name)
    do {
        return try body()
    } catch let failure as CFailure where failure.code == ErrorCodes.argument {
        throw failure
    } catch {
        _ = try textArgument(pointer, count, name)
        throw error
    }
}

/// JSON text of `len` bytes, lent to `body`. Text that parses holds no NUL byte (JSON allows none, not even inside
/// a string), so the check that the length matches the text (`textArgument`'s) runs only when `body` reports
/// invalid JSON, to name the argument instead: a message costs no extra pass over its bytes.
func withJSONArgument<R>(_ pointer: UnsafeRawPointer?, _ count: Int, _ name: String,
                         _ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
    let bytes = try bytesArgument(pointer, count, name)
    do {
        return try body(bytes.assumingMemoryBound(to: UInt8.self))
    } catch let error as PNCryptError where error.code == .invalidJSON {
        _ = try textArgument(pointer, count, name)
        throw error
    }
}

/// A batch: `count` items back to back in the `dataLen` bytes at `data`, item i `lengths[i]` bytes long. The
/// lengths must add up to `dataLen` exactly (a mismatch is refused before any item is touched).
struct BatchItems {
    let data: UnsafeRawBufferPointer
    let lengths: UnsafeBufferPointer<Int>

    init(_ data: UnsafeRawPointer?, _ dataLen: Int, _ lengths: UnsafePointer<Int>?, _ count: Int) throws {
        self.data = try bytesArgument(data, dataLen, "data")
        guard count >= 0 else { throw CFailure.argument("count: too large") }
        guard count == 0 || lengths != nil else { throw CFailure.argument("lengths is NULL but count is \(count)") }
        self.lengths = UnsafeBufferPointer(start: count == 0 ? nil : lengths, count: count)
        var total = 0
        for (index, length) in self.lengths.enumerated() {
            // size_t values above Int.max arrive negative.
            guard length >= 0, length <= dataLen - total else {
                throw CFailure.argument("lengths[\(index)]: the lengths add up to more than data_len (\(dataLen))")
            }
            total += length
        }
        guard total == dataLen else {
            throw CFailure.argument("the lengths add up to \(total), not data_len (\(dataLen))")
        }
    }

    var count: Int { lengths.count }

    /// Calls `body` with each item's index and bytes, in order.
    func forEach(_ body: (Int, UnsafeRawBufferPointer) throws -> Void) rethrows {
        var offset = 0
        for (index, length) in lengths.enumerated() {
            let item = length == 0 ? UnsafeRawBufferPointer(start: nil, count: 0)
                : UnsafeRawBufferPointer(rebasing: data[offset..<(offset + length)])
            try body(index, item)
            offset += length
        }
    }
}

/// A required NUL-terminated string.
/// A path given as a NUL-terminated string: its bytes exactly (never decoded: a path that is not UTF-8 names that
/// file).
func pathArgument(_ pointer: UnsafePointer<CChar>?, _ name: String) throws -> FilePath {
    guard let pointer else { throw CFailure.argument("\(name) is NULL") }
    return FilePath(bytes: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
}

func stringArgument(_ pointer: UnsafePointer<CChar>?, _ name: String) throws -> String {
    guard let pointer else { throw CFailure.argument("\(name) is NULL") }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
}

/// A cipher key given as a NUL-terminated string: its bytes exactly, which must be valid UTF-8 (never decoded
/// lossily): `CipherKey(bytes:)` refuses anything else with `invalidKey`, naming the offset.
func keyArgument(_ pointer: UnsafePointer<CChar>?, _ name: String) throws -> CipherKey {
    guard let pointer else { throw CFailure.argument("\(name) is NULL") }
    do {
        return try CipherKey(bytes: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    } catch {
        throw CFailure(ErrorCodes.code(for: error), "\(name): \(error.message)")
    }
}

/// A required output pointer, set to nil at once so that the caller can always free what it holds.
func outputArgument<T>(_ pointer: UnsafeMutablePointer<T?>?, _ name: String) throws -> UnsafeMutablePointer<T?> {
    guard let pointer else { throw CFailure.argument("\(name) is NULL") }
    pointer.pointee = nil
    return pointer
}

/// A scheme name, or `defaultValue` for NULL.
func schemeArgument(_ pointer: UnsafePointer<CChar>?, default defaultValue: Scheme?, allowAuto: Bool) throws
    -> Scheme? {
    guard let pointer else { return defaultValue }
    let name = String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
    if allowAuto && name == "auto" { return nil }
    guard let scheme = Scheme(rawValue: name) else {
        let names = (allowAuto ? ["auto"] : []) + Scheme.allCases.map(\.rawValue)
        throw CFailure.argument("unknown scheme '\(name.prefix(40))' (known: \(names.joined(separator: ", ")))")
    }
    return scheme
}

/// A `scheme` argument of the decrypting calls as the policy it names: NULL, "auto" or one scheme as
/// `schemeArgument` reads them (with `legacy`, how the module's `auto` reads headerless data), or a list joined by
/// commas ("auto,legacy33"), read by the library's one parser of lists (`ReadPolicy(naming:)`): a list names every
/// reading itself, so the module's own scheme adds none. A list that cannot be read is PNCRYPT_E_ARGUMENT, its
/// message the library's one line.
func readingArgument(_ pointer: UnsafePointer<CChar>?, legacy: Scheme?) throws -> ReadPolicy {
    if let pointer, strchr(pointer, Int32(UInt8(ascii: ","))) != nil {
        let names = String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
        do throws(PNCryptError) {
            return try ReadPolicy(naming: names)
        } catch {
            throw CFailure.argument(error.message)
        }
    }
    return ReadPolicy(scheme: try schemeArgument(pointer, default: nil, allowAuto: true), legacyScheme: legacy)
}

// MARK: Files

/// The file functions over the files layer the CLI's `-o` uses (`FileOutput`, `InputSource`): the output is
/// written to a file with no name in its folder and appears only when every stage has finished (links followed
/// once under the protected-symlinks rule; the replaced file's owner, group, mode and extended attributes kept, a
/// new file 0600); removed on any failure. An output that is not a regular file (a device, a FIFO, one of the
/// process's descriptors) is refused: what is written there cannot be taken back. The stream itself is
/// `StreamPipeline.run`, which wipes its read buffer.
enum FileTransform {
    /// Streams the file at `inPath` through `stages` into `outPath` (encryption: the input is read once).
    static func run(input inPath: FilePath, output outPath: FilePath, stages: [any ByteStreamStage]) throws {
        let fd = try files { () throws(FileError) in try InputFiles.open(inPath) }
        defer { close(fd) }
        try run(fd, named: "'\(inPath.shown)'", output: outPath, stages: stages)
    }

    /// The input at `path` as a source that can be read more than once (decryption chooses the key on the last
    /// blocks first): a regular file, else (a FIFO, a device) a copy in an unlinked 0600 temporary file.
    static func source(_ path: FilePath) throws -> InputSource {
        try files { () throws(FileError) in try InputSource(path: path, name: "'\(path.shown)'") }
    }

    /// Streams `source` from its start through `stages` into `outPath`, to the length it had when it was opened
    /// (the snapshot its last blocks were checked in: nothing appended since is read).
    static func run(_ source: InputSource, output outPath: FilePath, stages: [any ByteStreamStage]) throws {
        let start = try files { () throws(FileError) in try source.fromStart() }
        try run(start.fd, named: source.name, output: outPath, stages: stages, length: start.length)
    }

    /// Streams `input` (a regular file to `length`, else to the end it has when the stream begins) into `outPath`.
    private static func run(_ input: Int32, named name: String, output outPath: FilePath,
                            stages: [any ByteStreamStage], length: Int? = nil) throws {
        var info = stat()
        let hasInput = fstat(input, &info) == 0
        let file = try files { () throws(FileError) in
            try FileOutput(outPath, input: hasInput ? (info, name) : nil, streams: false, cleanupOnSignal: false)
        }
        try StreamPipeline.run(from: input, through: stages, to: file.fd, length: length)
        do throws(FileError) {
            // A new file stays 0600, as the C functions always made it; a replaced one keeps its access.
            try file.commit(newMode: FileOutput.newFileMode, durable: false)
        } catch {
            throw CFailure(ErrorCodes.io, error.message)
        }
    }

    /// Runs `body`, reporting a file error with its C code (`CFailure.init(_: FileError)`): an input that cannot be
    /// found as `PNCRYPT_E_FILE_NOT_FOUND`, an output over the input or not a regular file as `PNCRYPT_E_ARGUMENT`,
    /// the rest as `PNCRYPT_E_IO`.
    private static func files<R>(_ body: () throws(FileError) -> R) throws -> R {
        do throws(FileError) {
            return try body()
        } catch {
            throw CFailure(error)
        }
    }
}
