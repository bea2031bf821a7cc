import PNCryptBase
import Synchronization

/// The sizes of the buffers `wipe` wiped while `body` ran in this task, in order, each negative when the buffer did
/// not hold zeros after its wipe (`Wiping.observer`, a task-local hook of debug builds).
package func wipedBuffers(_ body: () throws -> Void) rethrows -> [Int] {
    let seen = Mutex<[Int]>([])
    try Wiping.$observer.withValue({ buffer in
        let zero = buffer.allSatisfy { $0 == 0 }
        seen.withLock { $0.append(zero ? buffer.count : -buffer.count) }
    }) {
        try body()
    }
    return seen.withLock { $0 }
}
