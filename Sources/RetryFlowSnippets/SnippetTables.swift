import RetryFlow

/// The two original snippets that started RetryFlow, retold as transition tables so their charts
/// can be drawn beside RetryFlow's and compared row by row. Teaching material: nothing runs them,
/// so they live in a target of their own, outside the library (the docs' charts and the tests use them).

/// The Swift snippet's states: it has no wait state of its own, it blocks a thread instead.
public enum SwiftSnippetState: String, TableSymbol {
    /// Not started.
    case idle
    /// `dataTask(with:)` in flight.
    case request
    /// The completion handler got an error; it decides.
    case retry
    /// `usleep(wait)` inside the completion handler: the session's delegate queue is blocked.
    case usleepOnDelegateQueue = "usleep on the delegate queue"
    /// The completion handler was called without an error: the snippet's success path, for any HTTP
    /// status (a 503 too: `URLSession` reports it as a response, `error == nil`).
    case success
    /// The completion handler was called with the last error.
    case failure
}

/// The Swift snippet's events. What decides is only whether the completion handler got an error:
/// an HTTP status never does.
public enum SwiftSnippetEvent: String, TableSymbol, MachineInput {
    /// `resume()`.
    case start
    /// The data task completed without an error: a response, whatever its status (503 included).
    case completed = "any response"
    /// The data task completed with an error: a transport error (reset, timeout, DNS), or a cancellation.
    case failed = "transport error"
    /// `usleep` returned.
    case woke

    /// The event is its own input: it carries nothing.
    public var event: Self { self }

    /// What the completion handler of `dataTask(with:)` sees for `outcome`, as this table's event.
    public init(_ outcome: OriginalOutcome) {
        self = outcome.isTransportError ? .failed : .completed
    }
}

/// The Swift snippet's one question.
public enum SwiftSnippetGuard: String, TableSymbol {
    /// `times > 0`.
    case timesLeft = "times > 0"

    /// `times` only falls as the snippet recurses: the loop it guards ends.
    public var boundsLoops: Bool { true }
}

/// What the Swift snippet does.
public enum SwiftSnippetEffect: String, TableSymbol {
    /// `dataTask(with:).resume()`.
    case resumeDataTask = "dataTask.resume()"
    /// `errorHandler(times, error)`.
    case errorHandler = "errorHandler(times, error)"
    /// `usleep(wait)`.
    case usleep = "usleep(wait)"
    /// `retryDataTask(times: times - 1)`: it calls itself.
    case recurse = "retryDataTask(times - 1)"
    /// `completionHandler(data, response, error)`.
    case completionHandler = "completionHandler"
}

/// The Objective-C snippet's states: no wait at all.
public enum ObjCSnippetState: String, TableSymbol {
    /// Not started.
    case idle
    /// The download in flight.
    case request
    /// The download failed; it decides.
    case retry
    /// `completion(response, data)` was called: the snippet's success path, for any HTTP status (a
    /// 503 too: `sendAsynchronousRequest` reports it as a response without a connection error).
    case success
    /// `failure()` was called, with no word of why: only after connection errors.
    case failure
}

/// The Objective-C snippet's events. Only a connection error counts as a failure: "failure" was
/// never defined beyond that, so an HTTP 503 is a success to it.
public enum ObjCSnippetEvent: String, TableSymbol, MachineInput {
    /// The first call.
    case start
    /// The download ended with a response and no connection error, whatever its status (503 included).
    case completed = "any response"
    /// The download ended with a connection error (reset, timeout, DNS).
    case failed = "connection error"

    /// The event is its own input: it carries nothing.
    public var event: Self { self }

    /// What the completion block of `sendAsynchronousRequest` sees for `outcome`, as this table's event.
    public init(_ outcome: OriginalOutcome) {
        self = outcome.isTransportError ? .failed : .completed
    }
}

/// The Objective-C snippet's one question.
public enum ObjCSnippetGuard: String, TableSymbol {
    /// `retryCount > 0`.
    case retriesLeft = "retryCount > 0"

    /// `retryCount` only falls as the snippet recurses: the loop it guards ends.
    public var boundsLoops: Bool { true }
}

/// What the Objective-C snippet does.
public enum ObjCSnippetEffect: String, TableSymbol {
    /// Starts the download (reload ignoring cache, 5 s timeout).
    case download
    /// Calls itself at once with `retryCount - 1`: no wait.
    case recurse = "downloadAndRetry(retryCount - 1)"
    /// `completion(response, data)`.
    case completion
    /// `failure()`.
    case failure = "failure()"
}

/// What one request of an original snippet ended with, as the originals' callbacks see it: a
/// response with its HTTP status (`error == nil`, whatever the status), or a transport error.
public enum OriginalOutcome: Hashable, Sendable {
    /// The server answered with this status.
    case status(Int)
    /// No answer: the connection was reset, timed out, or the name did not resolve.
    case transportError(String)

    /// Whether the callbacks see an error (only when no response came).
    public var isTransportError: Bool {
        if case .transportError = self { return true }
        return false
    }
}

/// The words of the Swift snippet's table: its states, events, guards, effects and the reasons a run ends.
public typealias SwiftSnippetVocabulary = TableWords<
    SwiftSnippetState, SwiftSnippetEvent, SwiftSnippetGuard, SwiftSnippetEffect, StopReason
>

extension TransitionTable where Vocabulary == SwiftSnippetVocabulary {
    /// `retryDataTask(times:wait:errorHandler:completionHandler:)` as it was written.
    public static let swiftSnippet = TransitionTable(
        name: "retryDataTask (original)",
        initial: .idle,
        terminals: [.success, .failure],
        rows: [
            .init(from: .idle, event: .start, to: .request, effects: [.resumeDataTask]),
            .init(from: .request, event: .completed, to: .success, effects: [.completionHandler], reason: .succeeded),
            .init(from: .request, event: .failed, to: .retry),
            .init(
                from: .retry, event: nil, condition: .unless(.timesLeft), to: .failure, effects: [.completionHandler],
                reason: .attemptsExhausted),
            .init(from: .retry, event: nil, to: .usleepOnDelegateQueue, effects: [.errorHandler, .usleep]),
            .init(from: .usleepOnDelegateQueue, event: .woke, to: .request, effects: [.recurse, .resumeDataTask]),
        ])
}

/// The words of the Objective-C snippet's table: its states, events, guards, effects and the reasons a run ends.
public typealias ObjCSnippetVocabulary = TableWords<
    ObjCSnippetState, ObjCSnippetEvent, ObjCSnippetGuard, ObjCSnippetEffect, StopReason
>

extension TransitionTable where Vocabulary == ObjCSnippetVocabulary {
    /// `downloadAndRetryWithURL:retryCount:completion:failure:` as it was written.
    public static let objcSnippet = TransitionTable(
        name: "downloadAndRetry (original)",
        initial: .idle,
        terminals: [.success, .failure],
        rows: [
            .init(from: .idle, event: .start, to: .request, effects: [.download]),
            .init(from: .request, event: .completed, to: .success, effects: [.completion], reason: .succeeded),
            .init(from: .request, event: .failed, to: .retry),
            .init(
                from: .retry, event: nil, condition: .unless(.retriesLeft), to: .failure, effects: [.failure],
                reason: .attemptsExhausted),
            .init(from: .retry, event: nil, to: .request, effects: [.recurse, .download]),
        ])
}
