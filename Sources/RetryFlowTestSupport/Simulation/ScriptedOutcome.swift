import Foundation
import RetryFlow
import RetryFlowHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one simulated attempt does: an HTTP status (with an optional Retry-After) or a transport
/// fault, taking an optional amount of virtual time.
///
/// The text form, as `retryflow simulate --outcomes` takes it: `200`, `503:retry-after=2`,
/// `reset`, `close`, `truncated`, `timeout`, `refused`, `dns`, `hang`, each optionally with
/// `:after=SECONDS` (how long the attempt takes), e.g. `reset,503:retry-after=2,200:after=0.1`; a
/// status may also carry the rate-limit headers: `429:x-ratelimit-reset=5`, `429:ratelimit-reset=5`,
/// `429:ratelimit="default";r=0;t=5`.
public struct ScriptedOutcome: Hashable, Sendable, CustomStringConvertible {
    /// What the attempt produces.
    public enum Result: Hashable, Sendable {
        /// An HTTP response with this status and, if given, this Retry-After value.
        case status(Int, retryAfter: String?)
        /// A transport error, as URLSession on Linux reports it.
        case error(URLError.Code)
        /// Never answers: only a per-attempt timeout, the deadline or cancellation ends it.
        case hang
    }

    /// What the attempt produces.
    public var result: Result
    /// Virtual time the attempt takes before producing it.
    public var duration: Duration
    /// Further response headers of a status (the rate-limit ones), by name.
    public var headers: [String: String] = [:]

    /// The rate-limit headers an outcome may carry: option name → header name (only this type reads it).
    static let headerOptions: [(option: String, header: String)] = [
        ("x-ratelimit-reset", "X-RateLimit-Reset"), ("ratelimit-reset", "RateLimit-Reset"), ("ratelimit", "RateLimit"),
        ("ratelimit-policy", "RateLimit-Policy"),
    ]

    /// Makes one.
    public init(_ result: Result, duration: Duration = .zero) {
        self.result = result
        self.duration = duration
    }

    /// Whether the attempt spends virtual time (sleeps on the clock).
    package var takesTime: Bool { result == .hang || duration > .zero }

    /// The fault names and the errors they stand for.
    package static let faults: [(name: String, code: URLError.Code)] = [
        ("reset", .networkConnectionLost), ("close", .badServerResponse), ("truncated", .unknown),
        ("timeout", .timedOut), ("refused", .cannotConnectToHost), ("dns", .cannotFindHost),
    ]

    /// Parses a comma-separated list, naming the bad item on error.
    package static func parseList(_ text: String) throws(ScriptedOutcomeError) -> [ScriptedOutcome] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ScriptedOutcomeError("the list of outcomes is empty", kind: .empty)
        }
        var outcomes: [ScriptedOutcome] = []
        for item in items { outcomes.append(try parse(item)) }
        return outcomes
    }

    /// Parses one item such as `503:retry-after=2` or `reset:after=0.5`.
    package static func parse(_ item: String) throws(ScriptedOutcomeError) -> ScriptedOutcome {
        let parts = item.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let head = parts.first, !head.isEmpty else { throw ScriptedOutcomeError("empty outcome in the list") }
        var outcome: ScriptedOutcome
        if let status = Int(head) {
            guard (100...599).contains(status) else {
                throw ScriptedOutcomeError("outcome \"\(item)\": status \(status) is not 100-599")
            }
            outcome = ScriptedOutcome(.status(status, retryAfter: nil))
        } else if head == "hang" {
            outcome = ScriptedOutcome(.hang)
        } else if let fault = faults.first(where: { $0.name == head }) {
            outcome = ScriptedOutcome(.error(fault.code))
        } else {
            let names = (["a status such as 503", "hang"] + faults.map(\.name)).joined(separator: ", ")
            throw ScriptedOutcomeError("outcome \"\(item)\": unknown \"\(head)\" (use \(names))")
        }
        for option in parts.dropFirst() {
            let pair = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else {
                throw ScriptedOutcomeError("outcome \"\(item)\": \"\(option)\" should be name=value")
            }
            switch pair[0] {
            case "retry-after":
                guard case .status(let status, _) = outcome.result else {
                    throw ScriptedOutcomeError("outcome \"\(item)\": retry-after goes with a status")
                }
                outcome.result = .status(status, retryAfter: pair[1])
            case "after":
                guard let seconds = Double(pair[1]),
                    let duration = Duration.checkedSeconds(seconds, limit: .seconds(1_000_000))
                else {
                    throw ScriptedOutcomeError("outcome \"\(item)\": after=\(pair[1]) is not a number of seconds")
                }
                outcome.duration = duration
            case let name where headerOptions.contains { $0.option == name }:
                guard case .status = outcome.result else {
                    throw ScriptedOutcomeError("outcome \"\(item)\": \(name) goes with a status")
                }
                outcome.headers[headerOptions.first { $0.option == name }!.header] = pair[1]
            default:
                let options = (["retry-after=", "after="] + headerOptions.map { $0.option + "=" }).joined(
                    separator: ", ")
                throw ScriptedOutcomeError("outcome \"\(item)\": unknown option \"\(pair[0])\" (use \(options))")
            }
        }
        return outcome
    }

    /// The text form.
    public var description: String {
        var text: String
        switch result {
        case .status(let status, let retryAfter):
            text = "\(status)" + (retryAfter.map { ":retry-after=\($0)" } ?? "")
            for (option, header) in Self.headerOptions {
                if let value = headers[header] { text += ":\(option)=\(value)" }
            }
        case .error(let code): text = Self.faults.first { $0.code == code }?.name ?? "error \(code.rawValue)"
        case .hang: text = "hang"
        }
        if duration > .zero { text += ":after=\(duration.inSeconds)" }
        return text
    }
}

/// A bad list of scripted outcomes, naming the item. Its words name no command-line flag (the tool
/// adds its own): the library is used from tests too.
package struct ScriptedOutcomeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem, for a caller that words it its own way.
    package enum Kind: Hashable, Sendable {
        /// No outcome at all.
        case empty
        /// A `hang` with neither a per-attempt timeout nor a deadline to end it.
        case hangWithoutTimer
        /// One item is malformed.
        case badItem
    }

    /// What is wrong.
    package let description: String
    /// What kind of problem.
    package let kind: Kind
    init(_ description: String, kind: Kind = .badItem) {
        self.description = description
        self.kind = kind
    }
}
