/// Where each run of one engine gets its jitter: run k draws from a ``SeededRandom`` seeded with the
/// k-th number of the engine's generator. Concurrent runs of one engine therefore jitter
/// differently (copying one generator into every run would make them retry in lock-step), and an
/// engine built with a ``SeededRandom`` replays: its k-th run draws the same delays every time.
final class RunRandomness: Sendable {
    private let base: Locked<AnyRandom>

    init(_ base: some RandomNumberGenerator & Sendable) {
        self.base = Locked(AnyRandom(base))
    }

    /// The generator of the next run.
    func nextRun() -> SeededRandom {
        SeededRandom(seed: base.withLock { $0.next() })
    }
}
