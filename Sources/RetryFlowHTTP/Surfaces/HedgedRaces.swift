import RetryFlow

/// The hedged races of one HTTP run, awaited before the run returns. The engine does not wait for
/// an attempt it ends (a per-attempt timeout, the deadline or the caller's cancel: it cancels the
/// attempt's task and goes on), and a cancelled race still drains its copies in that task. So the
/// run waits here, after the engine, until every race has ended: no copy outlives the call, and
/// every race's record is there, in attempt order. A cancelled copy ends at once (`send` throws
/// `CancellationError` the moment it is cancelled), so the wait is short.
final class HedgedRaces: Sendable {
    private struct State {
        var running = 0
        var records: [(attempt: Int, record: HedgingRecord)] = []
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// A race starts (before its first copy is sent).
    func begin() { state.withLock { $0.running += 1 } }

    /// Attempt `attempt`'s race has ended with `record`: every copy ended.
    func end(attempt: Int, _ record: HedgingRecord) {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.records.append((attempt, record))
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Every race's record in attempt order, once none is running.
    func records() async -> [HedgingRecord] {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if state.running > 0 { state.waiting.append(continuation) }
                return state.running == 0
            }
            if idle { continuation.resume() }
        }
        return state.withLock { $0.records.sorted { $0.attempt < $1.attempt }.map(\.record) }
    }
}
