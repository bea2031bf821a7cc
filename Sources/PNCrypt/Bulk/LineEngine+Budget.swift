// The bound on long lines in flight across `LineEngine`'s workers (`LineBudget`).
//
// Ownership: `LineBudget` owns its lock and condition; workers and the driver share it for one run.

import PNCryptBase

/// The bytes of long lines in flight at once, across every worker of a run, from when a worker starts on one until
/// its batch is handed back in order. A line parses into values several times its size, and a failed line's status
/// keeps its value until then: bounded by the batches alone (8 MiB of input), a run of long lines kept several of
/// them parsed at once, one per worker. A line of at least `threshold` bytes waits until the long lines in flight,
/// with it, hold at most `limit` bytes, or until none is, or until its batch is the next to be handed back (so the
/// oldest batch always goes on, and a run cannot stall). The caller's thread, which hands batches back, never
/// waits (it may take one line over the bound). Shorter lines, every ordinary message, never touch it.
final class LineBudget: Sendable {
    /// Lines this long or longer count.
    static let threshold = 256 * 1024
    /// The bytes of long lines in flight at once: one line of the longest length (4 MiB, `maxLineLength`).
    static let defaultLimit = 4 * 1024 * 1024

    private struct State {
        var taken = 0
        var peak = 0
        var nextToHandBack = 0
        var closing = false
    }

    let limit: Int
    private let state: Locked<State>
    private let changed: Locked<State>.Condition

    init(limit: Int = defaultLimit) {
        self.limit = limit
        let state = Locked(State())
        self.state = state
        changed = state.makeCondition()
    }

    /// The most bytes of long lines in flight at once so far.
    var peak: Int { state.withLock { $0.peak } }

    /// Counts a long line of `count` bytes of batch `sequence`, first waiting for room when `waits`.
    func take(_ count: Int, sequence: Int, waits: Bool) {
        let take = { (state: inout State) in
            state.taken += count
            state.peak = max(state.peak, state.taken)
        }
        guard waits else { return state.withLock(take) }
        state.withLock(waitingOn: changed, until: { state in
            state.taken == 0 || state.taken + count <= limit || sequence <= state.nextToHandBack || state.closing
        }, take)
    }

    /// Batch `sequence`, whose long lines held `count` bytes, was handed back.
    func handedBack(_ sequence: Int, releasing count: Int) {
        state.withLock { state in
            state.taken -= count
            state.nextToHandBack = sequence + 1
        }
        changed.broadcast()
    }

    /// No batch will be handed back any more: nothing waits.
    func close() {
        state.withLock { $0.closing = true }
        changed.broadcast()
    }
}
