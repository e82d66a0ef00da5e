import Foundation
import RetryFlow
import Testing

/// The JSON form our tools write and read traces in (`TraceJSON`): its exact bytes, and what it
/// refuses. Trace files written before it moved from the trace's own `Codable` read back the same.
@Suite struct TraceJSONTests {
    /// A step of each kind: a start, a failure whose guard is negated with a wait and words, a
    /// completion step under a guard, and a rejected event.
    static let trace = RetryTrace(
        steps: [
            .init(from: .idle, event: .start, condition: .always, to: .limiter, at: .zero, attempt: 0),
            .init(
                from: .request, event: .failed, condition: .unless(.retryable), to: .retry, at: .milliseconds(12),
                attempt: 1, delay: .milliseconds(1500), detail: "HTTP 503"),
            .init(from: .retry, event: nil, condition: .when(.attemptsLeft), to: .wait, at: .seconds(3), attempt: 2),
        ],
        rejections: [.init(state: .wait, event: .succeeded, at: .milliseconds(7))])

    @Test func aTraceIsWrittenAsTheseBytes() throws {
        let json = String(
            decoding: try TraceJSON.encode(Self.trace, formatting: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
        #expect(
            json == """
                {
                  "rejections" : [
                    {
                      "at" : 0.007,
                      "event" : "succeeded",
                      "state" : "wait"
                    }
                  ],
                  "steps" : [
                    {
                      "at" : 0,
                      "attempt" : 0,
                      "delay" : null,
                      "detail" : null,
                      "event" : "start",
                      "from" : "idle",
                      "guard" : null,
                      "to" : "limiter"
                    },
                    {
                      "at" : 0.012,
                      "attempt" : 1,
                      "delay" : 1.5,
                      "detail" : "HTTP 503",
                      "event" : "failed",
                      "from" : "request",
                      "guard" : "not retryable",
                      "to" : "retry"
                    },
                    {
                      "at" : 3,
                      "attempt" : 2,
                      "delay" : null,
                      "detail" : null,
                      "event" : null,
                      "from" : "retry",
                      "guard" : "attempts left",
                      "to" : "wait"
                    }
                  ]
                }
                """)
        #expect(try TraceJSON<RetryVocabulary>.decode(Data(json.utf8)) == Self.trace)
    }

    /// A file may leave out what is absent (`event`, `guard`, `delay`, `detail`, `rejections`);
    /// a guard reads back by its negated label (`no attempts left`).
    @Test func absentValuesMayBeLeftOut() throws {
        let trace = try TraceJSON<RetryVocabulary>.decode(
            Data(#"{"steps":[{"from":"retry","guard":"no attempts left","to":"failure","at":0.5,"attempt":3}]}"#.utf8))
        #expect(
            trace
                == RetryTrace(steps: [
                    .init(
                        from: .retry, event: nil, condition: .unless(.attemptsLeft), to: .failure,
                        at: .milliseconds(500), attempt: 3)
                ]))
    }

    /// What no run writes is a data error naming its place, with the words the CLI prints.
    @Test(arguments: [
        (#"{"from":"idle","guard":"sometimes","to":"wait","at":0,"attempt":0}"#, #"unknown guard "sometimes""#),
        (#"{"from":"","to":"wait","at":0,"attempt":0}"#, "Cannot initialize RetryState from invalid String value "),
        (#"{"from":"idle","to":"wait","at":-1,"attempt":0}"#, "-1.0 is not a number of seconds a run can take"),
        (#"{"from":"idle","to":"wait","at":0,"attempt":0,"delay":1e300}"#, "is not a number of seconds a run can take"),
        (#"{"to":"wait","at":0,"attempt":0}"#, "No value associated with key Key(stringValue: \"from\""),
    ])
    func badStepsAreRefusedByName(step: String, words: String) {
        let data = Data((#"{"steps":["# + step + "]}").utf8)
        #expect {
            _ = try TraceJSON<RetryVocabulary>.decode(data)
        } throws: { error in
            let context: DecodingError.Context
            switch error as? DecodingError {
            case .dataCorrupted(let found), .keyNotFound(_, let found): context = found
            default: return false
            }
            return context.debugDescription.contains(words)
                && context.codingPath.map(\.stringValue).starts(with: ["steps", "Index 0"])
        }
    }
}
