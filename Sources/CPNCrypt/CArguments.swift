// The arguments of the C entry points: the header's argument types as every entry point spells them (`CText`,
// `CTextOut`, `CErrorOut`, ...), and the checks that read them (lengths, NULLs, NUL bytes inside a length, a batch's
// items, paths, keys, schemes and lists of readings), each failure `PNCRYPT_E_ARGUMENT` naming the argument. Every
// pointer is the caller's, borrowed for one call. Nothing here knows a format: that is PNCrypt's.
import PNCrypt
import PNCryptPlatform
import SystemPackage

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
