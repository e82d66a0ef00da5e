import Foundation
import RetryFlow

/// A trace of an HTTP run as JSON: the trace's own form, plus OpenTelemetry's
/// `http.request.resend_count` (attempts sent before this one) on every step of each attempt
/// after the first, so tools reading OTel attributes see the resends.
///
/// ```swift
/// let data = try HTTPTraceJSON.encode(outcome.trace)
/// ```
public enum HTTPTraceJSON {
    /// The key OpenTelemetry's HTTP semantic conventions use for the resend count.
    package static let resendCountKey = "http.request.resend_count"

    /// `trace` as pretty, key-sorted JSON. A hedged run's `races` (its outcome's `hedging`) add a
    /// `hedging` array, one race an attempt: each copy's number, start and end (seconds from the
    /// race's start), how it ended, and the hedges sent and refused.
    public static func encode(_ trace: RetryTrace, races: [HedgingRecord] = []) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(Document(trace: trace, races: races))
    }

    private struct Document: Encodable {
        let trace: RetryTrace
        let races: [HedgingRecord]
        private enum Key: String, CodingKey { case steps, rejections, hedging }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(trace.steps.map(Step.init), forKey: .steps)
            try c.encode(trace.rejections.map(Rejection.init), forKey: .rejections)
            if !races.isEmpty {
                try c.encode(races.enumerated().map { Race(attempt: $0 + 1, record: $1) }, forKey: .hedging)
            }
        }
    }

    private struct Race: Encodable {
        struct Copy: Encodable {
            let number: Int
            let start: Double
            let end: Double
            let ending: String
            let detail: String?
        }
        let attempt: Int
        let copies: [Copy]
        let hedges: Int
        let deniedHedges: Int

        init(attempt: Int, record: HedgingRecord) {
            self.attempt = attempt
            copies = record.attempts.map {
                Copy(
                    number: $0.number, start: $0.start.inSeconds, end: $0.end.inSeconds, ending: $0.ending.rawValue,
                    detail: $0.detail)
            }
            hedges = record.hedges
            deniedHedges = record.deniedHedges
        }
    }

    /// A rejection in the trace's own form.
    private struct Rejection: Encodable {
        let rejection: RetryTrace.Rejection
        func encode(to encoder: any Encoder) throws { try TraceJSON.encode(rejection, to: encoder) }
    }

    /// A step in the trace's own form (`TraceJSON`), plus the resend count.
    private struct Step: Encodable {
        let step: RetryTrace.Step
        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            try TraceJSON.encode(step, to: encoder)
            guard step.attempt > 1 else { return }
            // A second keyed container on the same encoder adds to the step's object.
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(step.attempt - 1, forKey: Key(stringValue: HTTPTraceJSON.resendCountKey))
        }
    }
}
