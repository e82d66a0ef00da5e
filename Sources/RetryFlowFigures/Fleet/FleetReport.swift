import RetryFlow

/// What a ``FleetSimulation`` saw, second by second, and its summary.
package struct FleetReport: Sendable {
    /// One second of the simulation.
    package struct Second: Hashable, Sendable {
        /// Its start, in whole seconds.
        package var time: Int
        /// First attempts the clients offered.
        package var offered = 0
        /// Retry attempts sent to the server.
        package var retries = 0
        /// Retries the shared budget refused.
        package var refusedByBudget = 0
        /// Attempts the breaker refused (not sent).
        package var refusedByBreaker = 0
        /// Requests that reached the server.
        package var serverLoad = 0
        /// Runs that ended in success.
        package var successes = 0
        /// Runs that ended in failure.
        package var failures = 0
    }

    /// The scenario that was run.
    package let scenario: FleetScenario
    /// Every second from 0 until the last run ended.
    package let seconds: [Second]
    /// When the last failure or refusal after the server healed happened (`nil`: none after it).
    package let lastTroubleAfterHealing: Duration?

    /// Requests that reached the server ÷ first attempts, over the whole run.
    package var amplification: Double { ratio(seconds) }

    /// Requests that reached the server ÷ first attempts, counting only the outage's seconds.
    package var amplificationDuringOutage: Double {
        let from = Int(scenario.outage.lowerBound / .seconds(1))
        let to = Int((scenario.outage.upperBound / .seconds(1)).rounded(.up))
        return ratio(seconds.filter { $0.time >= from && $0.time < to })
    }

    /// How long after the server healed the fleet still saw failures or refusals (zero when none).
    package var timeToRecover: Duration {
        guard let last = lastTroubleAfterHealing else { return .zero }
        return max(.zero, last - scenario.outage.upperBound)
    }

    /// Totals over every second.
    package var totals: Second {
        seconds.reduce(into: Second(time: -1)) { sum, s in
            sum.offered += s.offered
            sum.retries += s.retries
            sum.refusedByBudget += s.refusedByBudget
            sum.refusedByBreaker += s.refusedByBreaker
            sum.serverLoad += s.serverLoad
            sum.successes += s.successes
            sum.failures += s.failures
        }
    }

    private func ratio(_ range: [Second]) -> Double {
        let offered = range.reduce(0) { $0 + $1.offered }
        return offered == 0 ? 0 : Double(range.reduce(0) { $0 + $1.serverLoad }) / Double(offered)
    }
}
