import RetryFlow
import RetryFlowHTTP

/// `fetch`'s exit status and the rule that chose it, from the machine's final state: 0 only for
/// `success`; 1 for `failure` (a POST's 503 not retried included) and `cancelled`; and, as in curl,
/// a final answer of 400 or more is a success unless -f/--fail-with-body asks for exit 1.
struct FetchExit {
    let status: Int32
    /// The rule, in words, for the summary line.
    let rule: String
    /// Whether the final answer's body is written (not with -f on an error status, nor above --max-filesize).
    let writesBody: Bool
    /// What went wrong when the machine itself succeeded (-f, --max-filesize), for stderr.
    let problem: String?

    init(outcome: RetryOutcome<HTTPResponse>, failOnError: Bool, bodyWithFailure: Bool, maxFileSize: Int?) {
        let answer = outcome.value
        if let maxFileSize, let answer, answer.data.count > maxFileSize {
            status = 1
            rule = "--max-filesize \(maxFileSize): the body has \(answer.data.count) bytes (nothing written)"
            writesBody = false
            problem = "the body is larger than --max-filesize (\(answer.data.count) > \(maxFileSize) bytes)"
            return
        }
        let errorStatus = answer.map { $0.statusCode >= 400 } ?? false
        let flag = bodyWithFailure ? "--fail-with-body" : "-f/--fail"
        writesBody = !(failOnError && errorStatus && !bodyWithFailure)
        switch outcome.finalState {
        case .success where failOnError && errorStatus:
            status = 1
            rule = "\(flag) and HTTP \(answer?.statusCode ?? 0)" + (bodyWithFailure ? "" : " (body not written)")
            problem = "the server answered HTTP \(answer?.statusCode ?? 0) (\(flag))"
        case .success:
            status = 0
            rule =
                errorStatus
                ? "the run ended in success: HTTP \(answer?.statusCode ?? 0) is a final answer (-f makes it exit 1)"
                : "the run ended in success"
            problem = nil
        default:
            status = 1
            rule = "the run ended in \(outcome.finalState.label) (\(outcome.reason.rawValue))"
            problem = nil
        }
    }
}
