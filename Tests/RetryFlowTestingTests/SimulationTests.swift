import RetryFlow
import RetryFlowTesting
import Testing

/// The simulation is a library used from tests too: its errors speak of policies and outcomes,
/// never of the command-line flags one tool happens to have.
@Suite struct SimulationTests {
    @Test func errorsNameNoCommandLineFlag() async throws {
        var messages: [String] = []
        do { _ = try ScriptedOutcome.parseList("") } catch { messages.append(error.description) }
        do { _ = try ScriptedOutcome.parseList("200,teapot") } catch { messages.append(error.description) }
        do {
            _ = try await Simulation.run(outcomes: [], retry: .default)
        } catch let error as ScriptedOutcomeError {
            messages.append(error.description)
        }
        do {
            _ = try await Simulation.run(outcomes: try ScriptedOutcome.parseList("hang"), retry: .default)
        } catch let error as ScriptedOutcomeError {
            messages.append(error.description)
        }
        #expect(messages.count == 4)
        #expect(messages.allSatisfy { !$0.contains("--") }, "\(messages)")
        #expect(messages.contains("a \"hang\" outcome needs a perAttemptTimeout or a deadline: nothing else ends it"))
    }

    @Test func aSimulatedRunIsConsistentWithTheTable() async throws {
        let outcome = try await Simulation.run(
            outcomes: try ScriptedOutcome.parseList("reset,503,200"), retry: .policy(RetryPolicy(jitter: .none)))
        #expect(outcome.reason == .succeeded)
        #expect(outcome.attempts.map(\.start) == [.zero, .milliseconds(500), .milliseconds(1500)])
        expectConsistent(outcome.trace)
    }
}
