import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// `make stress`: the cancel storm at full size, in release mode. Exit 0 when nothing that must
// never happen happened (lost or doubled completions, wrong final states, inconsistent traces),
// 1 otherwise; a crash (the Foundation registry trap this exists to rule out) ends it by signal.
//
//   retryflow-stress [--requests N] [--wave N] [--cancel-share X] [--timeout-ms N] [--seed N]
//                    [--no-url-cache] [--connection-close] [--control-inline-cancel] [--hedge-ms N]
//
// --hedge-ms N hedges every run (one hedge after N ms): each attempt a race whose losers are
// cancelled, the path of Foundation's cancellation crashes.
//
// --control-inline-cancel is the control experiment: RetryFlowHTTP's transport as it was before
// the registry fix (data task made and cancelled on the calling thread, inside the cancellation
// handler, whatever the task's state), to show what the fix changes.

var configuration = CancelStorm.Configuration()
var arguments = CommandLine.arguments.dropFirst()
@MainActor func number(_ name: String) -> Double {
    guard let text = arguments.popFirst(), let value = Double(text), value.isFinite, value >= 0 else {
        FileHandle.standardError.write(Data("retryflow-stress: \(name) needs a number\n".utf8))
        exit(2)
    }
    return value
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--requests": configuration.requests = max(1, Int(number(argument)))
    case "--wave": configuration.wave = max(1, Int(number(argument)))
    case "--cancel-share": configuration.cancelShare = min(1, number(argument))
    case "--timeout-ms": configuration.perAttemptTimeout = .milliseconds(Int64(min(60_000, number(argument))))
    case "--seed": configuration.seed = UInt64(min(1e15, number(argument)))
    case "--no-url-cache": configuration.urlCache = false
    case "--hedge-ms": configuration.hedging = HedgingPolicy(delay: .milliseconds(Int64(min(60_000, number(argument)))))
    case "--connection-close": configuration.rules.connectionClose = .always
    case "--control-inline-cancel":
        configuration.transport = { session, request in try await inlineCancelSend(session, request) }
    default:
        FileHandle.standardError.write(Data("retryflow-stress: unknown argument \(argument)\n".utf8))
        exit(2)
    }
}
let report = try await CancelStorm.run(configuration)
print(report)
exit(report.clean ? 0 : 1)

/// The transport before the fix: `URLSessionTask.cancel()` straight from the cancellation handler.
@Sendable func inlineCancelSend(_ session: URLSession, _ request: URLRequest) async throws -> HTTPResponse {
    let box = Locked<(task: URLSessionDataTask?, continuation: CheckedContinuation<HTTPResponse, any Error>?)>(
        (nil, nil))
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
            let task = session.dataTask(with: request) { data, response, error in
                let waiting = box.withLock { state in
                    defer { state.continuation = nil }
                    return state.continuation
                }
                if let error {
                    waiting?.resume(throwing: error)
                } else if let http = response as? HTTPURLResponse {
                    waiting?.resume(returning: HTTPResponse(data: data ?? Data(), response: http))
                } else {
                    waiting?.resume(throwing: URLError(.badServerResponse))
                }
            }
            box.withLock { $0 = (task, continuation) }
            task.resume()
        }
    } onCancel: {
        let (task, waiting) = box.withLock { state in
            defer { state.continuation = nil }
            return (state.task, state.continuation)
        }
        task?.cancel()
        waiting?.resume(throwing: CancellationError())
    }
}
