/// Where each run of one engine gets its jitter: run k draws from a ``SeededRandom`` seeded with the
/// k-th number of the engine's generator. Concurrent runs of one engine therefore jitter
/// differently (copying one generator into every run would make them retry in lock-step), and an
/// engine built with a ``SeededRandom`` replays: its k-th run draws the same delays every time.
final class RunRandomness: Sendable {
    /// The engine's generator behind its lock; `nil` for the system's, which holds no state to guard.
    private let base: Locked<AnyRandom>?

    private init(locking base: Locked<AnyRandom>?) {
        self.base = base
    }

    /// The runs' seeds from `base`: one object for every engine on the system's generator (the
    /// default, made anew for each HTTP request: an object, a box and a lock it does not need).
    static func drawing(from base: some RandomNumberGenerator & Sendable) -> RunRandomness {
        base is SystemRandomNumberGenerator ? system : RunRandomness(locking: Locked(AnyRandom(base)))
    }

    private static let system = RunRandomness(locking: nil)

    /// The seeds of runs on the system's generator: one stream for the process, itself seeded once
    /// by the system. Asking the system for each run's seed was a `getrandom` system call per
    /// request (it showed in nginx-concurrency's profile); runs still get distinct, unpredictable
    /// seeds, and jitter needs nothing stronger.
    private static let systemSeeds: Locked<SeededRandom> = {
        var system = SystemRandomNumberGenerator()
        return Locked(SeededRandom(seed: system.next()))
    }()

    /// The generator of the next run.
    func nextRun() -> SeededRandom {
        guard let base else { return SeededRandom(seed: Self.systemSeeds.withLock { $0.next() }) }
        return SeededRandom(seed: base.withLock { $0.next() })
    }
}
