// The reserve of random IVs an encrypting context draws ahead, for both backends: CSPRNG output fetched in one
// call per `ivReserveSize / 16` IVs (a call to the generator costs more than encrypting a message: OpenSSL's
// `RAND_bytes` some 6,600 instructions and a `getpid`, a `getrandom` system call on Linux), then handed out 16 bytes
// at a time, each byte once, even across `fork()`.
//
// Ownership: a context owns its reserve (allocated on first use, wiped and freed with `freeIVReserve` in the
// context's `deinit`); bytes handed out are copied to the caller's buffer and wiped in the reserve.

import PNCryptBase

import Synchronization
import PNCryptPlatform

/// Incremented in the child after every `fork()`: buffered random bytes drawn under an older generation are
/// thrown away, so a parent and its child never hand out the same IVs (OpenSSL's own DRBG does the same).
private let forkGeneration = Atomic<Int>(0)

private let forkHandlerInstalled: Bool = {
    pthread_atfork(nil, nil, { forkGeneration.add(1, ordering: .relaxed) })
    return true
}()

/// Where a context's reserve stands: one stored property of the context (a final class: its fields are read and
/// written in place, with no run-time exclusivity check on the path, callgrind says).
struct IVReserveState {
    /// The reserve (`ivReserveSize` bytes), nil until the first IV is drawn.
    var bytes: UnsafeMutableRawPointer?
    /// How many bytes are left to hand out (0 when empty: the initial value).
    var remaining = 0
    /// The fork generation the reserve was filled under.
    var generation = 0
}

/// A context that keeps a reserve of CSPRNG bytes for its random IVs: it stores the state, says the size and how to
/// fill the reserve; the reserve's logic is here, once.
protocol RandomIVReserve: AnyObject {
    /// The reserve's state, empty (`IVReserveState()`) until the first IV is drawn.
    var ivReserve: IVReserveState { get set }
    /// The reserve's size, a multiple of 16.
    static var ivReserveSize: Int { get }
    /// Fills `count` bytes at `bytes` from the backend's CSPRNG; false when the generator fails.
    func drawRandom(_ bytes: UnsafeMutableRawPointer, count: Int) -> Bool
}

extension RandomIVReserve {
    /// Writes the reserve's next 16 bytes to `output` and wipes them there, refilling the reserve first when it is
    /// empty or was filled before a `fork()`; false when the generator fails.
    @inline(__always)
    func takeIV(into output: UnsafeMutableRawPointer) -> Bool {
        // The fork handler is installed before the first bytes are drawn (`refillIVReserve`): until then there is
        // nothing to discard, and the generation read here is 0.
        if ivReserve.remaining == 0 || forkGeneration.load(ordering: .relaxed) != ivReserve.generation {
            guard refillIVReserve() else { return false }
        }
        let source = ivReserve.bytes! + (Self.ivReserveSize - ivReserve.remaining)
        output.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
        output.storeBytes(of: source.loadUnaligned(fromByteOffset: 8, as: UInt64.self), toByteOffset: 8,
                          as: UInt64.self)
        wipe(source, count: 16)
        ivReserve.remaining -= 16
        return true
    }

    /// Fills the reserve (once per `ivReserveSize / 16` IVs, and after a `fork()`).
    @inline(never)
    func refillIVReserve() -> Bool {
        let generation = forkHandlerInstalled ? forkGeneration.load(ordering: .relaxed) : 0
        let reserve = ivReserve.bytes ?? UnsafeMutableRawPointer.allocate(byteCount: Self.ivReserveSize, alignment: 16)
        ivReserve.bytes = reserve
        guard drawRandom(reserve, count: Self.ivReserveSize) else {
            ivReserve.remaining = 0
            return false
        }
        ivReserve.remaining = Self.ivReserveSize
        ivReserve.generation = generation
        return true
    }

    /// Wipes and frees the reserve (the context's `deinit`).
    func freeIVReserve() {
        guard let bytes = ivReserve.bytes else { return }
        wipe(bytes, count: Self.ivReserveSize)
        bytes.deallocate()
    }
}
