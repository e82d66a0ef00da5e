import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP

// Runs both samples against FlakyServer and prints each one's chart (DOT) and trace (timeline)
// between markers that scripts/outside-package.sh reads; exits 1 if a run did not end as the
// sample says it does.

/// Prints the run's chart and trace; whether it succeeded with `expected` as its body.
func show(_ name: String, _ run: (outcome: RetryOutcome<HTTPResponse>, chart: String), body expected: String) -> Bool {
    let body = run.outcome.value.map { String(decoding: $0.data, as: UTF8.self) }
    print("== \(name): chart ==")
    print(run.chart)
    print("== \(name): trace ==")
    print(Timeline.render(run.outcome.trace, reason: run.outcome.reason))
    print("== \(name): end ==")
    guard run.outcome.succeeded && body == expected else {
        print("\(name): expected success with \"\(expected)\", got \(run.outcome.finalState), \(body ?? "no body")")
        return false
    }
    return true
}

let refreshed = show("refresh credentials", try await refreshCredentialsOn401(), body: "me")
let mirrored = show("use mirror", try await mirrorAfterTwoFailures(), body: "from the mirror")
exit(refreshed && mirrored ? 0 : 1)
