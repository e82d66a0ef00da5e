import Foundation
import RetryFlow

/// Tells a person on stderr what a live run is doing, from the engine's transition hook: each
/// attempt, its outcome, each wait, and why the run stopped. On a terminal, a wait of a second or
/// more counts down in place; elsewhere (a pipe, a CI log) each line is printed once.
final class ProgressReporter: Sendable {
    private struct State {
        var attemptStarted: Duration = .zero
        var countdown: (task: Task<Void, Never>, line: String)?
    }

    private let state = Locked(State())
    private let label: String
    private let maxAttempts: Int

    init(label: String, maxAttempts: Int) {
        self.label = label
        self.maxAttempts = maxAttempts
    }

    func record(_ step: RetryTrace.Step) {
        state.withLock { record(step, in: &$0) }
    }

    private func record(_ step: RetryTrace.Step, in state: inout State) {
        if let running = state.countdown {
            running.task.cancel()
            state.countdown = nil
            // The countdown becomes a plain line.
            FileHandle.standardError.write(Data("\r\u{1B}[K\(running.line)\n".utf8))
        }
        let prefix = Console.paint(label, .strong)
        // What a person watching wants to hear: where an attempt starts, how it ended, a wait, and why a
        // run stops without another attempt. Every other step passes silently.
        switch step.to {
        case .request:
            state.attemptStarted = step.at
            Console.error("\(prefix) attempt \(step.attempt) of \(maxAttempts) at \(step.at.shortDescription)")
        case .success where step.from == .request:
            Console.error(
                "\(prefix)   " + Console.paint("done in \((step.at - state.attemptStarted).shortDescription)", .good))
        case .retry where step.from == .request, .failure where step.from == .request,
            .cancelled where step.from == .request:
            let what = step.detail ?? step.event?.label ?? ""
            Console.error(
                "\(prefix)   "
                    + Console.paint(
                        "\(step.event?.label ?? "") after \((step.at - state.attemptStarted).shortDescription): \(what)",
                        .bad))
        case .wait where step.from == .admission:
            let delay = step.delay ?? .zero
            let line =
                "\(prefix)   " + Console.paint("waiting \(delay.shortDescription) before the next attempt", .quiet)
            if Console.stderrIsTerminal && delay >= .seconds(1) {
                state.countdown = (Self.countDown(delay, prefix: prefix), line)
            } else {
                Console.error(line)
            }
        case .failure where [.retry, .admission, .breaker].contains(step.from):
            Console.error("\(prefix)   " + Console.paint("not retried: \(step.condition.label)", .bad))
        case .idle, .limiter, .pacing, .tokenWait, .breaker, .retry, .budget, .admission, .wait, .success, .answered,
            .failure, .cancelled, .step:
            break
        }
    }

    /// Rewrites one line with the time left until the wait ends (or is cut short).
    private static func countDown(_ delay: Duration, prefix: String) -> Task<Void, Never> {
        Task {
            let end = ContinuousClock.now.advanced(by: delay)
            while !Task.isCancelled {
                let left = ContinuousClock.now.duration(to: end)
                guard left > .zero else { break }
                let text =
                    "\r\u{1B}[K\(prefix)   "
                    + Console.paint("waiting \(left.shortDescription) before the next attempt", .quiet)
                FileHandle.standardError.write(Data(text.utf8))
                try? await Task.sleep(for: min(left, .milliseconds(250)))
            }
        }
    }
}
