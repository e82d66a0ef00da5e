import RetryFlow
import RetryFlowHTTP

/// `fetch`'s exit status and the rule that chose it. The status comes from the state the run
/// ended in, by ``FetchExit/table``, and nothing else: what the caller receives is the final
/// state's (`RetryState.delivery`), and -f/--fail works by making the rules end an error status in
/// `failure`, not by a later check here.
struct FetchExit {
    let status: Int32
    /// The rule, in words, for the summary line.
    let rule: String
    /// Whether the last answer's body is written: when the run delivers a value; after a failure,
    /// as curl does, unless -f or --max-filesize refused it (--fail-with-body writes it anyway).
    let writesBody: Bool
    /// What went wrong, for stderr, when no error of the run says it (-f on a download).
    let problem: String?

    /// One line per state a run ends in: its exit status (``status(of:)``, which every run's status
    /// comes from too) and what it means. `fetch --help` and the man page print it.
    static let table: [(state: RetryState, status: Int32, meaning: String)] = RetryTable.retry.terminals.map {
        ($0, status(of: $0), meaning(of: $0))
    }

    /// The exit status of a run that ended in `state`: 0 when it delivers a value, 1 otherwise.
    static func status(of state: RetryState) -> Int32 {
        switch state.delivery {
        case .value: 0
        case .error, .cancellation, nil: 1
        }
    }

    private static func meaning(of state: RetryState) -> String {
        switch state.delivery {
        case .value where state == .success: "an answer the rules accept (a 2xx); its body is written"
        case .value: "a final answer that is no success (a 404; a POST's 503 not sent again), written as curl does"
        case .error: "the run gave up (the summary says why); -f makes a status of 400 or more end here"
        case .cancellation: "the run was cancelled"
        case nil: "a run does not end here"
        }
    }

    /// The help's table, with exit status 2 (no run) last.
    static var helpText: String {
        let width = table.map(\.state.label.count).max() ?? 0
        let rows = table.map { row in
            "  \(row.status)  \(row.state.label.padding(toLength: width, withPad: " ", startingAt: 0))  \(row.meaning)"
        }
        let usage = "  2  \("-".padding(toLength: width, withPad: " ", startingAt: 0))  bad usage or bad input: no run"
        return (["exit status, from the state the run ended in:"] + rows + [usage]).joined(separator: "\n")
    }

    /// `limitsBody`: --max-filesize was given. `fileComplete`: a download put every byte of the file in place (its final answer may be a
    /// 416 saying the file was already whole).
    init(
        outcome: RetryOutcome<HTTPResponse>, failOnError: Bool, bodyWithFailure: Bool, limitsBody: Bool = false,
        fileComplete: Bool = false
    ) {
        let delivery = outcome.finalState.delivery
        status = Self.status(of: outcome.finalState)
        writesBody = delivery == .value || (delivery == .error && (bodyWithFailure || !(failOnError || limitsBody)))
        let ended = "the run ended in \(outcome.finalState.label) (\(outcome.reason.rawValue))"
        let flag = bodyWithFailure ? "--fail-with-body" : "-f/--fail"
        let code = outcome.value?.statusCode
        if fileComplete {
            rule = "\(ended): the file is complete"
            problem = nil
        } else if failOnError, delivery == .error, let code, code >= 400 {
            // The rules' failing statuses (set by -f) ended it; say so in curl's terms.
            rule = "\(ended): \(flag) and HTTP \(code)" + (writesBody ? "" : " (body not written)")
            problem = "the server answered HTTP \(code) (\(flag))"
        } else {
            rule = ended
            problem = nil
        }
    }
}
