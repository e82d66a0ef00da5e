import RetryFlow
import RetryFlowHTTP

/// The credential store's table explored (`retryflow verify --machine credential`): runs ask for
/// the credential with the current version (only a refresh helps), an older one (a stale request)
/// or a credential known expired; the refresh under way succeeds or fails; the owner sets a new
/// credential. Each input comes at the same instant as the last or 31 s later, past the window.
package enum CredentialExploration {
    /// Explores for up to `inputs` inputs, with a window of `maximumRefreshes` in 30 s (one by
    /// default, so a full window is reached within three inputs).
    package static func explore(
        inputs: Int = 5, maximumRefreshes: Int = 1
    ) -> ExplorationResult<CredentialVocabulary> {
        TableExplorer(
            table: .credentialRefresh, rules: CredentialRules(maximumRefreshes: maximumRefreshes, window: .seconds(30)),
            model: CredentialModel(inputLimit: inputs, maximumRefreshes: maximumRefreshes)
        ).explore()
    }
}

struct CredentialModel: ExplorationModel {
    typealias Rules = CredentialRules

    let inputLimit: Int
    let maximumRefreshes: Int

    var boundDescription: String {
        "\(inputLimit) inputs, each at once or 31 s after the last; at most \(maximumRefreshes) refresh(es) in 30 s"
    }
    var invariants: [String] {
        ["one refresh at a time", "a failed version is never refreshed", "no more refreshes than the window allows"]
    }

    func choices(at position: ExplorationPosition<CredentialRules>) -> [ExplorationChoice<CredentialInput>] {
        let version = position.machine.rules.version
        var inputs: [CredentialInput] = [
            .credentialAsked(sent: version, expired: false), .credentialAsked(sent: nil, expired: true),
            .credentialReplaced,
        ]
        if version > 1 { inputs.append(.credentialAsked(sent: version - 1, expired: false)) }
        if position.machine.state == .refreshing { inputs += [.refreshSucceeded, .refreshFailed] }
        return [Duration.zero, .seconds(31)].flatMap { step in
            inputs.map { ExplorationChoice($0, at: position.at + step, required: true) }
        }
    }

    func check(
        before: ExplorationPosition<CredentialRules>, after: ExplorationPosition<CredentialRules>,
        input: CredentialInput, rows: [Int]
    ) -> [InvariantViolation] {
        let table = after.machine.table
        let starts = rows.contains { table.rows[$0].effects.contains(.startRefresh) }
        var broken: [InvariantViolation] = []
        if starts, before.machine.state == .refreshing {
            broken.append(.init("one refresh at a time", "a refresh started while one was under way"))
        }
        if starts, before.machine.state == .failed {
            broken.append(.init("a failed version is never refreshed", "version \(before.machine.rules.version)"))
        }
        if after.machine.rules.refreshStarts.count > maximumRefreshes {
            broken.append(
                .init(
                    "no more refreshes than the window allows",
                    "\(after.machine.rules.refreshStarts.count) started within 30 s"))
        }
        return broken
    }

    func detail(of input: CredentialInput) -> String? {
        switch input {
        case .credentialAsked(let sent, let expired):
            expired ? "known expired" : sent.map { "sent with version \($0)" }
        case .refreshSucceeded, .refreshFailed, .credentialReplaced: nil
        }
    }
}
