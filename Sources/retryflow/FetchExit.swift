import RetryFlow
import RetryFlowHTTP

/// `fetch`'s exit status and the rule that chose it, from the machine's final state: 0 only for
/// `success`; 1 for `failure` (a POST's 503 not retried included; with -f/--fail-with-body, any
/// status of 400 or more, which the rules make a failure) and `cancelled`. A final 404 without -f
/// is an answer: success, 0, as in curl.
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
        outcome: RetryOutcome<HTTPResponse>, failOnError: Bool, bodyWithFailure: Bool, maxFileSize: Int?,
        fileComplete: Bool = false
    ) {
        let answer = outcome.value
        let size = answer?.data.count ?? 0
        // The rules' maxBodyBytes (--max-filesize) ended the run; here it only decides what is written.
        let oversized = maxFileSize.map { size > $0 } ?? false
        let errorStatus = answer.map { $0.statusCode >= 400 } ?? false
        let flag = bodyWithFailure ? "--fail-with-body" : "-f/--fail"
        writesBody = !oversized && !(failOnError && errorStatus && !bodyWithFailure)
        status = outcome.finalState == .success ? 0 : 1
        let ended = "the run ended in \(outcome.finalState.label)"
        let because = "\(ended) (\(outcome.reason.rawValue))"
        switch (outcome.finalState, answer?.statusCode) {
        case (.failure, _) where oversized:
            let limit = maxFileSize ?? 0
            rule = "\(because): --max-filesize \(limit) and a body of \(size) bytes (nothing written)"
            problem = "the body is larger than --max-filesize (\(size) > \(limit) bytes)"
        case (.success, _) where fileComplete:
            rule = "\(ended): the file is complete"
            problem = nil
        case (.success, let code?) where code >= 400:
            rule = "\(ended): HTTP \(code) is a final answer (-f makes it exit 1)"
            problem = nil
        case (.success, _):
            rule = ended
            problem = nil
        case (.failure, let code?) where failOnError && code >= 400:
            // The rules' failing statuses (set by -f) ended it; say so in curl's terms.
            rule = "\(because): \(flag) and HTTP \(code)" + (writesBody ? "" : " (body not written)")
            problem = "the server answered HTTP \(code) (\(flag))"
        default:
            rule = because
            problem = nil
        }
    }
}
