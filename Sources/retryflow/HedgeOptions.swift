import RetryFlow
import RetryFlowHTTP

/// `fetch --hedge SECONDS [--hedges N]`: gRPC A6's hedging on the command line.
enum HedgeOptions {
    static let specs = [OptionSpec("--hedge"), OptionSpec("--hedges")]

    static let help = """
          --hedge SECONDS         send a copy of the request if no answer came within SECONDS; the first
                                  good answer wins and the others are cancelled (only requests safe to
                                  repeat: GET, PUT, DELETE …, or with an Idempotency-Key header)
          --hedges N              extra copies at most, 1 to 4 (default 1); needs --hedge
        """

    /// Sets `options.hedging` from the `--policy` file's `"hedging"` (`file`) and the flags, which
    /// override it field by field; `streamed` (a download to a file) cannot be hedged.
    static func apply(
        _ args: CommandLineArguments, file: HedgingPolicy?, to options: inout HTTPRetryOptions, streamed: Bool
    ) throws(UsageError) {
        let extra = try args.integer("--hedges", in: 1...(HedgingPolicy.attemptLimit - 1))
        guard let delay = try args.seconds("--hedge") ?? file?.delay else {
            if extra != nil { throw UsageError("--hedges needs --hedge SECONDS (the delay before each copy)") }
            return
        }
        let hedging = HedgingPolicy(delay: delay, maxAttempts: extra.map { $0 + 1 } ?? file?.maxAttempts ?? 2)
        // One copy at a time is no hedging: such a file is accepted wherever the flags would be absent.
        guard hedging.maxAttempts > 1 else { return }
        if streamed {
            throw UsageError(
                args.has("--hedge") || extra != nil
                    ? "--hedge does not apply to a download to a file (-o FILE, -O)"
                    : "--policy: \"hedging\" does not apply to a download to a file (-o FILE, -O)")
        }
        options.hedging = hedging
    }

    /// `; 1 hedge sent` for the summary line of a hedged run (nothing when the run did not hedge).
    static func summary(_ outcome: RetryOutcome<some Sendable>) -> String {
        guard !outcome.hedging.isEmpty else { return "" }
        let count = outcome.hedges
        return ", \(count) hedge\(count == 1 ? "" : "s") sent"
    }

    /// For `--verbose`: each hedged attempt's copies, one line each, their times overlapping.
    static func lines(_ outcome: RetryOutcome<some Sendable>) -> [String] {
        outcome.hedging.enumerated().flatMap { index, record in
            ["hedged attempt \(index + 1): \(record.reason?.rawValue ?? record.finalState.label)"]
                + record.attempts.map { "  copy \($0)" }
        }
    }
}
