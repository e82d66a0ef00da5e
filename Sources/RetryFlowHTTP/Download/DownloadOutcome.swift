import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything a download produced: where its file stands, every attempt (with the byte range it
/// asked for and wrote), and both traces — the retry machine's and the transfer machine's.
public struct DownloadOutcome: Sendable {
    /// The retry run: final state and reason, every attempt with its error, the retry trace. Its
    /// value is the last response (its body empty when it went to the file).
    public let retry: RetryOutcome<HTTPResponse>
    /// Where the transfer ended: `complete`, `failed` or `cancelled`.
    public let transferState: TransferState
    /// Every transfer transition taken; each step's detail names its byte range.
    public let transfer: TransferTrace
    /// What each attempt asked for and wrote.
    public let ranges: [DownloadAttemptRange]
    /// The destination when complete; otherwise the partial file (`FILE.part`), kept to resume.
    public let file: URL
    /// Bytes in `file`.
    public let bytesOnDisk: Int
    /// The complete length, if a server announced it.
    public let expectedTotal: Int?

    /// Whether every byte is on disk, in place (and matched the checksum, if one was given).
    public var succeeded: Bool { transferState == .complete }
    /// The last response head, if any.
    package var response: HTTPURLResponse? { retry.value?.response }
}

/// A download that did not complete: why, every attempt, and where the partial file is.
public struct DownloadError: Error, CustomStringConvertible {
    /// Everything the download produced.
    public let outcome: DownloadOutcome

    /// The error for `outcome`.
    package init(outcome: DownloadOutcome) { self.outcome = outcome }

    /// One line for the run, then one per attempt.
    public var description: String {
        var text: String
        if let last = outcome.retry.attempts.last?.error as? DownloadProblem, !last.isRetryable {
            text = "download failed: \(last)"
        } else if outcome.retry.finalState.delivery == .value, let response = outcome.response {
            // The retry run ended on an answer that is not the file (a 404).
            let status = response.statusCode
            text =
                "download failed: the answer was HTTP \(status) "
                + HTTPURLResponse.localizedString(forStatusCode: status)
        } else {
            text = outcome.retry.error?.description ?? "download \(outcome.transferState.label)"
        }
        if outcome.bytesOnDisk > 0 {
            text += "\n  kept \(outcome.bytesOnDisk) bytes in \(outcome.file.path) to resume"
        }
        return text
    }
}
