/// How an attempt ended, from the engine's point of view.
enum AttemptEnd<Value: Sendable>: Sendable {
    case returned(Value)
    case threw(any Error)
    case timerFired
    case cancelled
}

/// Runs one attempt in its own task, racing a timer (per-attempt timeout or deadline) and the
/// caller's cancellation. The first to finish wins; the engine does not wait for a losing attempt
/// (an operation may take a while to notice cancellation: URLSession on Linux takes ~200 ms), it
/// cancels it when performing the table's `cancelAttempt` effect.
struct AttemptRace<Value: Sendable>: Sendable {
    private struct Box {
        var winner: AttemptEnd<Value>?
        var continuation: CheckedContinuation<AttemptEnd<Value>, Never>?
        var resumed = false
    }

    private let box = Locked(Box())
    /// The task running the operation; cancelled by the `cancelAttempt` effect.
    private(set) var operationTask: Task<Void, Never>?
    /// The task that offers `timerFired` when the attempt's timer is due; cancelled once it ended.
    private var timer: Task<Void, Never>?

    /// Starts the attempt, and its timer when there is one; ``end()`` awaits whichever finishes first.
    static func start<C: Clock<Duration>>(
        timerAt: Duration?, time: ClockTime<C>, attempt: RetryAttempt,
        operation: @escaping @Sendable (RetryAttempt) async throws -> Value
    ) -> AttemptRace {
        var race = AttemptRace()
        let box = race.box
        race.operationTask = Task {
            do {
                let value = try await operation(attempt)
                Self.offer(.returned(value), to: box)
            } catch {
                Self.offer(.threw(error), to: box)
            }
        }
        race.timer = timerAt.map { instant in
            Task {
                do {
                    try await time.sleep(until: instant)
                    Self.offer(.timerFired, to: box)
                } catch {}
            }
        }
        return race
    }

    /// How the attempt ended: its answer, its timer, or the caller's cancellation, whichever came first.
    func end() async -> AttemptEnd<Value> {
        let box = self.box
        let end = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<AttemptEnd<Value>, Never>) in
                let ready: AttemptEnd<Value>? = box.withLock { state in
                    if let winner = state.winner {
                        state.resumed = true
                        return winner
                    }
                    state.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            Self.offer(.cancelled, to: box)
        }
        timer?.cancel()
        return end
    }

    private static func offer(_ end: AttemptEnd<Value>, to box: Locked<Box>) {
        let continuation: CheckedContinuation<AttemptEnd<Value>, Never>? = box.withLock { state in
            guard state.winner == nil else { return nil }
            state.winner = end
            guard let continuation = state.continuation, !state.resumed else { return nil }
            state.resumed = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: end)
    }
}
