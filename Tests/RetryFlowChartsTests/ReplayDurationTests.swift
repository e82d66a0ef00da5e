import RetryFlow
import Testing

@testable import RetryFlowCharts

/// `simulate --replay` reads durations from a file: what `shortDescription` wrote comes back exactly,
/// and anything else is bad input named by its step, never a trap (`.seconds(.nan)` traps).
@Suite struct ReplayDurationTests {
    @Test func aShortDescriptionReadsBackAsItsDuration() {
        for duration: Duration in [.zero, .milliseconds(420), .milliseconds(1500), .seconds(301), .seconds(90)] {
            #expect(Duration(shortDescription: duration.shortDescription) == duration, "\(duration.shortDescription)")
        }
    }

    @Test(arguments: ["nan s", "inf s", "-1 s", "1e300 min", "5", "5 h", "", "1 s 2"])
    func textThatIsNoDurationIsRefused(_ text: String) {
        #expect(Duration(shortDescription: text) == nil)
    }

    @Test(arguments: ["token in nan s", "token in inf ms", "token in -3 s"])
    func aReplayedWaitThatIsNoDurationIsBadInputNotATrap(_ detail: String) throws {
        let departure = #expect(throws: ExploredRunReplay.Departure.self) {
            _ = try ExploredRunReplay.replay(Self.rateLimited(detail), policy: .default)
        }
        #expect(departure?.isBadInput == true)
        #expect(departure?.step == 2)
    }

    /// The same file with a wait that is a duration is read (whatever the machine then does with it).
    @Test func aReplayedWaitThatIsADurationIsRead() {
        do {
            _ = try ExploredRunReplay.replay(Self.rateLimited("token in 1.5 s"), policy: .default)
        } catch {
            #expect(!error.isBadInput, "\(error)")
        }
    }

    static func rateLimited(_ detail: String) -> RetryTrace {
        RetryTrace(steps: [
            .init(from: .idle, event: .start, condition: .always, to: .limiter, at: .zero, attempt: 0),
            .init(
                from: .limiter, event: .rateLimited, condition: .always, to: .pacing, at: .zero, attempt: 0,
                detail: detail),
        ])
    }
}
