import Foundation
import RetryFlow
import RetryFlowTestSupport

/// AWS's "Exponential Backoff And Jitter" (2015) contention experiment, with the waits computed by
/// `RetryPolicy/delay(beforeRetry:memory:using:)`: N clients start at once, each reads one shared
/// record and writes it back under optimistic concurrency; a write fails when another landed between
/// its read and its write, and the client waits, reads and writes again until its write lands.
///
/// Every message crosses a network whose delay is |N(10 ms, 2 ms)|; base 5 ms, cap 2 s. Virtual time
/// only (milliseconds as numbers), one ``SeededRandom`` per run: a seed replays.
package enum ContentionSimulation {
    /// How a client waits between a failed write and its next read.
    package enum Algorithm: String, CaseIterable, Sendable {
        /// No wait at all.
        case none
        /// Capped exponential backoff, no jitter.
        case exponential
        /// Anywhere from zero to the exponential delay.
        case full
        /// Half the exponential delay, plus anywhere up to the other half.
        case equal
        /// Anywhere from the base to three times the last wait.
        case decorrelated

        /// The policy whose delays the clients wait, capped at 2 s, every wait jittered (the first one
        /// too, as AWS's simulator does). AWS's `min(cap, base · 2^attempt)` counts attempts from 1, so
        /// its first wait is 2 · base = 10 ms: RetryFlow's exponential backoff starts at its own base,
        /// so it is given 10 ms. Decorrelated jitter draws from base to 3 × the last wait, its floor
        /// the base itself: 5 ms, as in AWS's `uniform(base, sleep · 3)`.
        package var policy: RetryPolicy {
            let cap = ContentionSimulation.cap
            let doubling = Backoff.exponential(base: ContentionSimulation.base * 2, multiplier: 2)
            return switch self {
            case .none: RetryPolicy(backoff: .constant(.zero), jitter: .none)
            case .exponential: RetryPolicy(backoff: doubling, maxDelay: cap, jitter: .none)
            case .full: RetryPolicy(backoff: doubling, maxDelay: cap, jitter: .full)
            case .equal: RetryPolicy(backoff: doubling, maxDelay: cap, jitter: .equal)
            case .decorrelated:
                RetryPolicy(
                    backoff: .exponential(base: ContentionSimulation.base, multiplier: 2), maxDelay: cap,
                    jitter: .decorrelated)
            }
        }
    }

    /// The first wait.
    package static let base = Duration.milliseconds(5)
    /// The longest wait.
    package static let cap = Duration.seconds(2)
    /// The numbers of contending clients the figure plots: 10 to 190 in steps of 10.
    package static let clientCounts = Array(stride(from: 10, through: 190, by: 10))

    /// One point of the figure: the means over the runs.
    package struct Point: Hashable, Sendable {
        /// How many clients contended.
        package var clients: Int
        /// Their waits.
        package var algorithm: Algorithm
        /// Milliseconds until the last client learned its write landed.
        package var time: Double
        /// Writes the server received (failed ones included).
        package var calls: Double

        /// A point (the tests read them back from a CSV).
        package init(clients: Int, algorithm: Algorithm, time: Double, calls: Double) {
            self.clients = clients
            self.algorithm = algorithm
            self.time = time
            self.calls = calls
        }
    }

    /// What one run saw.
    package struct Run {
        /// Milliseconds until the last write's answer arrived.
        package var time = 0.0
        /// When each write reached the server, in milliseconds, in order.
        package var writes: [Double] = []
    }

    /// The mean of `runs` seeded runs of `clients` clients waiting by `algorithm`.
    package static func point(clients: Int, algorithm: Algorithm, runs: Int, seed: UInt64) -> Point {
        var time = 0.0
        var calls = 0
        for index in 0..<runs {
            let run = run(clients: clients, algorithm: algorithm, seed: runSeed(seed, clients, algorithm, index))
            time += run.time
            calls += run.writes.count
        }
        return Point(
            clients: clients, algorithm: algorithm, time: time / Double(runs), calls: Double(calls) / Double(runs))
    }

    /// The seed of run `index` of a point: every point and run draws its own sequence.
    package static func runSeed(_ seed: UInt64, _ clients: Int, _ algorithm: Algorithm, _ index: Int) -> UInt64 {
        let which = UInt64(Algorithm.allCases.firstIndex(of: algorithm)!)
        return seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(clients) &* 1_000_003 &+ which &* 7919 &+ UInt64(index)
    }

    /// One run, from the first read to the last write's answer.
    package static func run(clients: Int, algorithm: Algorithm, seed: UInt64) -> Run {
        enum Message {
            case read(client: Int) // a read reaches the server
            case readAnswer(client: Int, version: Int) // its answer reaches the client, which writes at once
            case write(client: Int, version: Int) // the write reaches the server
            case writeAnswer(client: Int, landed: Bool) // its answer reaches the client
        }
        let policy = algorithm.policy
        var random = SeededRandom(seed: seed)
        var memories = [BackoffMemory](repeating: BackoffMemory(), count: clients)
        var failures = [Int](repeating: 0, count: clients)
        var version = 0
        var run = Run()
        var queue = EventHeap<Message>()
        func delay() -> Double { abs(normal(mean: 10, deviation: 2, using: &random)) }
        for client in 0..<clients { queue.push(.read(client: client), at: delay()) }
        while let (now, message) = queue.pop() {
            run.time = now
            switch message {
            case .read(let client):
                queue.push(.readAnswer(client: client, version: version), at: now + delay())
            case .readAnswer(let client, let read):
                queue.push(.write(client: client, version: read), at: now + delay())
            case .write(let client, let read):
                run.writes.append(now)
                let landed = read == version
                if landed { version += 1 }
                queue.push(.writeAnswer(client: client, landed: landed), at: now + delay())
            case .writeAnswer(let client, let landed):
                guard !landed else { continue }
                failures[client] += 1
                let wait = policy.delay(beforeRetry: failures[client], memory: &memories[client], using: &random)
                queue.push(.read(client: client), at: now + delay() + wait.inSeconds * 1000)
            }
        }
        return run
    }

    /// A normal draw (Box–Muller over two ``RandomNumberGenerator/unitDraw()``s).
    static func normal<R: RandomNumberGenerator>(mean: Double, deviation: Double, using random: inout R) -> Double {
        let u = 1 - random.unitDraw() // in 0<..1, so the logarithm is finite
        let v = random.unitDraw()
        return mean + deviation * (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}
