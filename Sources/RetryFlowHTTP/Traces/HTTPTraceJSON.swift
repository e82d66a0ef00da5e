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
    public static let resendCountKey = "http.request.resend_count"

    /// `trace` as pretty, key-sorted JSON.
    public static func encode(_ trace: RetryTrace) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(Document(trace: trace))
    }

    private struct Document: Encodable {
        let trace: RetryTrace
        private enum Key: String, CodingKey { case steps, rejections }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(trace.steps.map(Step.init), forKey: .steps)
            try c.encode(trace.rejections, forKey: .rejections)
        }
    }

    private struct Step: Encodable {
        let step: RetryTrace.Step
        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            try step.encode(to: encoder)
            guard step.attempt > 1 else { return }
            // A second keyed container on the same encoder adds to the step's object.
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(step.attempt - 1, forKey: Key(stringValue: HTTPTraceJSON.resendCountKey))
        }
    }
}
