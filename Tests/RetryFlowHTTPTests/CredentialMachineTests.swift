import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP
import Testing

/// The credential store's machine alone: inputs in, actions out, no I/O, no clock.
@Suite struct CredentialMachineTests {
    static func machine(maximum: Int = 5, window: Duration = .seconds(30)) -> CredentialMachine {
        CredentialMachine(
            table: .credentialRefresh, rules: CredentialRules(maximumRefreshes: maximum, window: window))
    }

    static func actions(_ machine: inout CredentialMachine, _ input: CredentialInput, at seconds: Int = 0) throws
        -> [CredentialAction]
    {
        Array(try machine.handle(input, at: .seconds(seconds)).actions)
    }

    @Test func aRefusalOfTheCurrentVersionStartsOneRefreshAndLaterAsksWaitForIt() throws {
        var machine = Self.machine()
        #expect(
            try Self.actions(&machine, .credentialAsked(sent: 1, expired: false)) == [
                .startRefresh(version: 1), .awaitRefresh(version: 1),
            ])
        #expect(machine.state == .refreshing)
        #expect(try Self.actions(&machine, .credentialAsked(sent: 1, expired: false)) == [.awaitRefresh(version: 1)])
        #expect(try Self.actions(&machine, .refreshSucceeded) == [.install(version: 2), .wakeWaiters])
        #expect(machine.state == .idle && machine.rules.version == 2)
        // v1's late refusal: the current credential, no refresh.
        #expect(try Self.actions(&machine, .credentialAsked(sent: 1, expired: false)) == [.handCurrent])
        // A first send with a fresh credential, then one known expired.
        #expect(try Self.actions(&machine, .credentialAsked(sent: nil, expired: false)) == [.handCurrent])
        #expect(
            try Self.actions(&machine, .credentialAsked(sent: nil, expired: true)).first == .startRefresh(version: 2))
    }

    @Test func theWindowRefusesOneTooManyAndForgetsOldStarts() throws {
        var machine = Self.machine(maximum: 2, window: .seconds(30))
        for second in [0, 10] {
            _ = try Self.actions(&machine, .credentialAsked(sent: machine.rules.version, expired: false), at: second)
            _ = try Self.actions(&machine, .refreshSucceeded, at: second)
        }
        let sent = machine.rules.version
        #expect(try Self.actions(&machine, .credentialAsked(sent: sent, expired: false), at: 29) == [.refuseExcessive])
        #expect(machine.state == .idle, "an excessive ask fails that run only")
        // At 30 s the start at 0 s has left the window.
        #expect(
            try Self.actions(&machine, .credentialAsked(sent: sent, expired: false), at: 30).first
                == .startRefresh(version: 3))
    }

    @Test func aFailedVersionStaysFailedUntilACredentialIsSet() throws {
        var machine = Self.machine()
        _ = try Self.actions(&machine, .credentialAsked(sent: 1, expired: false))
        #expect(try Self.actions(&machine, .refreshFailed) == [.failWaiters])
        for sent in [1, nil] as [Int?] {
            #expect(try Self.actions(&machine, .credentialAsked(sent: sent, expired: false)) == [.answerFailure])
        }
        #expect(machine.state == .failed)
        #expect(try Self.actions(&machine, .credentialReplaced) == [.install(version: 2)])
        #expect(machine.state == .idle)
        #expect(try Self.actions(&machine, .credentialAsked(sent: 1, expired: false)) == [.handCurrent])
    }

    @Test func aRefreshEndThatNoRefreshStartedIsRejected() {
        var machine = Self.machine()
        #expect(throws: CredentialMachine.Rejection.self) { _ = try machine.handle(.refreshSucceeded, at: .zero) }
        #expect(machine.state == .idle)
    }

    @Test func theStoresTableVerifies() {
        // Every row is reached, and single flight, a failed version and the window hold on every path.
        let result = CredentialExploration.explore(inputs: 4)
        #expect(result.holds, "\(result.text)")
        #expect(result.reachableRows.count == CredentialTable.credentialRefresh.rows.count, "\(result.text)")
    }
}
