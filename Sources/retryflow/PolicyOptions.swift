import Foundation
import RetryFlow
import RetryFlowHTTP

/// The policy flags `fetch` and `simulate` share, curl's spellings included.
enum PolicyOptions {
    static let specs: [OptionSpec] = [
        OptionSpec("--attempts"), OptionSpec("--retry"),
        OptionSpec("--backoff"), OptionSpec("--delay"), OptionSpec("--multiplier"), OptionSpec("--max-delay"),
        OptionSpec("--retry-delay"), OptionSpec("--jitter"), OptionSpec("--min-delay"), OptionSpec("--schedule"),
        OptionSpec("--timeout"), OptionSpec("--max-time"), OptionSpec("--deadline"), OptionSpec("--retry-max-time"),
        OptionSpec("--max-retry-after"), OptionSpec("--retry-on-status"),
        OptionSpec("--no-retry-after", value: false), OptionSpec("--retry-non-idempotent", value: false),
        OptionSpec("--policy"),
    ]

    static let help = """
          --attempts N            total attempts, the first included (default 3)
          --retry N               retries after the first attempt (curl's meaning: N + 1 attempts)
          --backoff KIND          constant, linear or exponential (default exponential)
          --delay SECONDS         the first delay (default 0.5)
          --multiplier X          growth of exponential backoff (default 2)
          --max-delay SECONDS     cap on any backoff delay (default 20; below --delay: constant at the cap)
          --min-delay SECONDS     floor under every delay, after cap and jitter (tenacity's min=)
          --schedule LIST         the delays written out, e.g. 1,2,5 (the last repeats; Polly's list)
          --retry-delay SECONDS   curl's constant delay: same as --backoff constant --delay SECONDS
          --jitter KIND           none, full, equal, decorrelated, or symmetric:P for ±P % (default full)
          --timeout SECONDS       per-attempt timeout (curl's --max-time is accepted)
          --deadline SECONDS      time for all attempts and waits (curl's --retry-max-time is accepted)
          --max-retry-after S     longest Retry-After honoured; more ends the run (default 300)
          --retry-on-status LIST  statuses to retry, e.g. 429,503 (default 408,429,500,502,503,504)
          --no-retry-after        ignore Retry-After and the rate-limit headers (use the backoff)
          --retry-non-idempotent  retry POST and PATCH too
          --policy FILE.json      start from a RetryPolicy in its JSON form; flags override it
                                  ("hedging": {"delay": S, "maxAttempts": N} beside it hedges, as --hedge)
        """

    /// The policy (and hedging) in `--policy FILE.json`, if given (fetch, simulate, verify and
    /// render read it alike; fetch and a single simulated run hedge with its hedging).
    static func policyFile(_ arguments: CommandLineArguments) throws(UsageError) -> PolicyFile? {
        guard let path = arguments.value("--policy") else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--policy \(path): cannot read the file")
        }
        do {
            return try JSONDecoder().decode(PolicyFile.self, from: data)
        } catch let error as RetryPolicyError {
            throw UsageError("--policy \(path): \(error)")
        } catch {
            throw UsageError("--policy \(path): not a RetryPolicy in JSON (\(Self.describe(error)))")
        }
    }

    /// The policy and HTTP rules the flags describe, and the `--policy` file's hedging (which
    /// ``HedgeOptions`` applies, with `--hedge`).
    static func make(
        from arguments: CommandLineArguments
    ) throws(UsageError) -> (policy: RetryPolicy, rules: HTTPRetryRules, hedging: HedgingPolicy?) {
        let file = try policyFile(arguments)
        var policy = file?.policy ?? RetryPolicy.default
        if arguments.has("--attempts") && arguments.has("--retry") {
            throw UsageError("give --attempts (total) or --retry (retries), not both")
        }
        if let attempts = try arguments.integer("--attempts", in: 1...1_000_000) { policy.maxAttempts = attempts }
        if let retries = try arguments.integer("--retry", in: 0...999_999) { policy.maxAttempts = retries + 1 }

        if arguments.has("--retry-delay") && (arguments.has("--backoff") || arguments.has("--delay")) {
            throw UsageError("--retry-delay is curl's constant delay; give it or --backoff/--delay, not both")
        }
        if arguments.has("--schedule")
            && (arguments.has("--backoff") || arguments.has("--delay") || arguments.has("--retry-delay"))
        {
            throw UsageError("--schedule lists every delay; give it or --backoff/--delay/--retry-delay, not both")
        }
        let kind = try arguments.choice("--backoff", ["constant", "linear", "exponential"])
        let delay = try arguments.seconds("--delay")
        if let constant = try arguments.seconds("--retry-delay") {
            policy.backoff = .constant(constant)
        } else if kind != nil || delay != nil {
            let base = delay ?? policy.backoff.base
            switch kind ?? Self.kind(of: policy.backoff) {
            case "constant": policy.backoff = .constant(base)
            case "linear": policy.backoff = .linear(initial: base, increment: base)
            default:
                let multiplier: Double
                if case .exponential(_, let m) = policy.backoff { multiplier = m } else { multiplier = 2 }
                policy.backoff = .exponential(base: base, multiplier: multiplier)
            }
        }
        if let text = arguments.value("--multiplier") {
            guard let multiplier = Double(text), multiplier.isFinite else {
                throw UsageError("--multiplier needs a number, got \"\(text)\"")
            }
            guard case .exponential(let base, _) = policy.backoff else {
                throw UsageError("--multiplier goes with --backoff exponential")
            }
            policy.backoff = .exponential(base: base, multiplier: multiplier)
        }
        if let list = arguments.value("--schedule") { policy.backoff = .schedule(try Self.delays(list)) }
        if let cap = try arguments.seconds("--max-delay") { policy.maxDelay = cap }
        if let floor = try arguments.seconds("--min-delay") { policy.minDelay = floor }
        if let text = arguments.value("--jitter") { policy.jitter = try Self.jitter(text) }
        if let timeout = try positiveSeconds("--timeout", curlName: "--max-time", in: arguments) {
            policy.perAttemptTimeout = timeout
        }
        if let deadline = try positiveSeconds("--deadline", curlName: "--retry-max-time", in: arguments) {
            policy.deadline = deadline
        }
        if let cap = try arguments.seconds("--max-retry-after") { policy.maxRetryAfter = cap }
        do {
            try policy.validate()
        } catch {
            throw UsageError(error.description)
        }

        var rules = HTTPRetryRules.default
        if let list = arguments.value("--retry-on-status") {
            var statuses = Set<Int>()
            for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                guard let status = Int(item.trimmingCharacters(in: .whitespaces)), (100...599).contains(status) else {
                    throw UsageError("--retry-on-status: \"\(item)\" is not a status from 100 to 599")
                }
                statuses.insert(status)
            }
            rules.retryableStatuses = statuses
        }
        if arguments.has("--no-retry-after") {
            rules.honorRetryAfter = false
            rules.honorRateLimit = false
        }
        if arguments.has("--retry-non-idempotent") { rules.retryNonIdempotent = true }
        return (policy, rules, file?.hedging)
    }

    /// A duration given under our name or curl's, not both, and more than zero.
    private static func positiveSeconds(
        _ name: String, curlName: String, in arguments: CommandLineArguments
    ) throws(UsageError) -> Duration? {
        if arguments.has(name) && arguments.has(curlName) {
            throw UsageError("\(curlName) is curl's name for \(name); give one")
        }
        let given = try arguments.seconds(name)
        let alias = try arguments.seconds(curlName)
        guard let value = given ?? alias else { return nil }
        guard value > .zero else { throw UsageError("\(given == nil ? curlName : name) must be more than 0") }
        return value
    }

    private static func kind(of backoff: Backoff) -> String {
        switch backoff {
        case .constant, .schedule, .custom: "constant"
        case .linear: "linear"
        case .exponential: "exponential"
        }
    }

    /// `1,2,5`: seconds, each finite and not negative.
    private static func delays(_ list: String) throws(UsageError) -> [Duration] {
        var delays: [Duration] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            let text = item.trimmingCharacters(in: .whitespaces)
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 1e9 else {
                throw UsageError("--schedule: \"\(text)\" is not a number of seconds (e.g. --schedule 1,2,5)")
            }
            delays.append(.nanoseconds(Int64((seconds * 1e9).rounded())))
        }
        return delays
    }

    /// A named jitter, or `symmetric:P` for ±P %.
    private static func jitter(_ text: String) throws(UsageError) -> Jitter {
        if let named = Jitter(rawValue: text) { return named }
        if text.hasPrefix("symmetric:"), let percent = Double(text.dropFirst("symmetric:".count)), percent.isFinite,
            (0...100).contains(percent)
        {
            return .symmetric(percent / 100)
        }
        throw UsageError(
            "--jitter must be one of none, full, equal, decorrelated, or symmetric:P with P from 0 to 100, got \"\(text)\""
        )
    }

    static func describe(_ error: any Error) -> String {
        if let decoding = error as? DecodingError {
            switch decoding {
            case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
                .keyNotFound(_, let context):
                let path = context.codingPath.map(\.stringValue).joined(separator: ".")
                return (path.isEmpty ? "" : "\(path): ") + context.debugDescription
            @unknown default:
                return String(describing: decoding)
            }
        }
        return String(describing: error)
    }
}
