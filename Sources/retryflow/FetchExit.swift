import RetryFlow
import RetryFlowHTTP

/// `fetch`'s exit status and the rule that chose it, from the machine's final state: 0 only for
/// `success`; 1 for `failure` (a POST's 503 not retried, a final answer, included; with
/// -f/--fail-with-body, any status of 400 or more, which the rules make a failure) and `cancelled`.
/// A final 404 without -f is an answer: success, 0, as in curl.
struct FetchExit {
    let status: Int32
    /// The rule, in words, for the summary line.
    let rule: String
    /// Whether the final answer's body is written (not with -f on an error status, nor above --max-filesize).
    let writesBody: Bool
    /// What went wrong, for stderr, when no error of the run says it (-f, --max-filesize).
    let problem: String?

    /// `fileComplete`: a download put every byte of the file in place (its final answer may be a
    /// 416 saying the file was already whole).
    init(
        outcome: RetryOutcome<HTTPResponse>, failOnError: Bool, bodyWithFailure: Bool, fileComplete: Bool = false
    ) {
        let answer = outcome.value
        let errorStatus = answer.map { $0.statusCode >= 400 } ?? false
        let flag = bodyWithFailure ? "--fail-with-body" : "-f/--fail"
        // The last answer is written, as curl does, unless -f refused its status (--fail-with-body
        // writes it anyway) or the rules refused the answer itself (a body over --max-filesize, the
        // rules' maxBodyBytes): the run's reason says which; nothing here looks at the body again.
        let refused = outcome.reason == .notRetryable && outcome.attempts.last?.returnedValue == true
        let failedOnStatus = failOnError && errorStatus
        writesBody = !(failedOnStatus && !bodyWithFailure) && !(refused && !failedOnStatus)
        status = outcome.finalState == .success ? 0 : 1
        let ended = "the run ended in \(outcome.finalState.label)"
        let because = "\(ended) (\(outcome.reason.rawValue))"
        switch (outcome.finalState, answer?.statusCode) {
        case (.success, _) where fileComplete:
            rule = "\(ended): the file is complete"
            problem = nil
        case (.success, let code?) where code >= 400:
            rule = "\(ended): HTTP \(code) is a final answer (-f makes it exit 1)"
            problem = nil
        case (.success, _):
            rule = ended
            problem = nil
        case (.failure, let code?) where failedOnStatus:
            // The rules' failing statuses (set by -f) ended it; say so in curl's terms.
            rule = "\(because): \(flag) and HTTP \(code)" + (writesBody ? "" : " (body not written)")
            problem = "the server answered HTTP \(code) (\(flag))"
        case (.failure, _) where refused:
            // A result the rules made a failure (--max-filesize): the verdict's own words say why.
            let why = outcome.attempts.last?.errorDescription ?? "rejected"
            rule = "\(because): \(why) (nothing written)"
            problem = why
        default:
            rule = because
            problem = nil
        }
    }
}
