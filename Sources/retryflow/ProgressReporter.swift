import Foundation
import RetryFlow

/// Tells a person on stderr what a live run is doing, from the engine's transition hook: each
/// attempt, its outcome, each wait, and why the run stopped.
final class ProgressReporter: @unchecked Sendable {
    private let lock = NSLock()
    private var attemptStarted: Duration = .zero
    private let label: String
    private let maxAttempts: Int

    init(label: String, maxAttempts: Int) {
        self.label = label
        self.maxAttempts = maxAttempts
    }

    func record(_ step: RetryTrace.Step) {
        lock.lock()
        defer { lock.unlock() }
        let prefix = Console.paint(label, .strong)
        switch (step.from, step.to) {
        case (_, .request):
            attemptStarted = step.at
            Console.error("\(prefix) attempt \(step.attempt) of \(maxAttempts) at \(step.at.shortDescription)")
        case (.request, .success):
            Console.error("\(prefix)   " + Console.paint("done in \((step.at - attemptStarted).shortDescription)", .good))
        case (.request, .retry), (.request, .failure), (.request, .cancelled):
            let what = step.detail ?? step.event?.label ?? ""
            Console.error("\(prefix)   " + Console.paint("\(step.event?.label ?? "") after \((step.at - attemptStarted).shortDescription): \(what)", .bad))
        case (.retry, .wait):
            Console.error("\(prefix)   " + Console.paint("waiting \(step.delay?.shortDescription ?? "") before the next attempt", .quiet))
        case (.retry, .failure):
            Console.error("\(prefix)   " + Console.paint("not retried: \(step.condition.label)", .bad))
        default:
            break
        }
    }
}
