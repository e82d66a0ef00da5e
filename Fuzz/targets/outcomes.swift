import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting

/// `--outcomes` scripts: parsed or refused, never a trap; the text form parses back to the same
/// script; a parsed script runs on the virtual clock to a trace the table allows, with the
/// completion exactly once.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    guard let outcomes = try? ScriptedOutcome.parseList(text) else { return 0 }
    let printed = outcomes.map(\.description).joined(separator: ",")
    let reparsed = try? ScriptedOutcome.parseList(printed)
    require(
        reparsed?.map(\.description) == outcomes.map(\.description), "\(text.debugDescription) printed as \(printed)")
    let policy = RetryPolicy(
        maxAttempts: 4, backoff: .constant(.milliseconds(100)), jitter: .full, deadline: .seconds(20),
        perAttemptTimeout: .seconds(2))
    blocking {
        guard let outcome = try? await Simulation.run(outcomes: outcomes, retry: .policy(policy)) else { return }
        require(outcome.trace.inconsistencies(with: RetryTable.retry).isEmpty, "inconsistent trace for \(printed)")
        require(
            RetryTable.retry.isTerminal(outcome.finalState) && outcome.finalState.delivery != nil,
            "run of \(printed) ended in \(outcome.finalState)")
    }
    return 0
}
