import Foundation
import RetryFlow
import RetryFlowFigures
import RetryFlowTestSupport

/// `retryflow simulate --clients N`: a fleet against a scripted outage, with a budget and a breaker.
enum FleetOptions {
    static let specs = [
        OptionSpec("--clients"), OptionSpec("--duration"), OptionSpec("--interval"), OptionSpec("--outage"),
        OptionSpec("--budget"), OptionSpec("--breaker"), OptionSpec("--break"), OptionSpec("--when-open"),
        OptionSpec("--chart"), OptionSpec("--server-rate"), OptionSpec("--burst"), OptionSpec("--latency"),
        OptionSpec("--adaptive", value: false), OptionSpec("--aws-exact", value: false),
    ]

    static let help = """
        Fleet mode (--clients): N clients share one retry budget and one circuit breaker, each sending one
        request per --interval against a server that answers 503 during --outage and 200 otherwise; prints
        a table per second and the retry amplification (requests sent ÷ first attempts) and recovery time.
          --clients N            how many clients (1-10000)
          --duration SECONDS     how long clients send first attempts (default 60)
          --interval SECONDS     time between one client's requests (default 1)
          --outage FROM-TO       when the server fails, in seconds (default 10-30)
          --budget MODE          none (default), aws (500 tokens, 5 a retry, 10 a timeout retry, +1 a success),
                                 aws:CAPACITY, grpc (10 tokens, ratio 0.1), grpc:MAX:RATIO
          --breaker MODE         none (default), polly (10 % failures over ≥ 100 calls in 30 s),
                                 consecutive:N (N failures in a row)
          --break SECONDS        how long the breaker stays open (default 5)
          --when-open ACTION     wait (wait out the break, default) or fail
          --chart FILE.svg       write a line chart of load over time
        In fleet mode the policy defaults to 4 attempts.
        Rate mode (--clients with --server-rate): N clients (1-1000) each send as fast as they can against a
        server that accepts R requests/s (nginx limit_req, nodelay) and answers 429 beyond; prints per second
        the requests offered, sent, throttled and delayed, goodput and the share of 429s.
          --server-rate R        what the server accepts, requests per second
          --burst B              requests above the rate it accepts at once (default 20)
          --latency MS           from send to answer, in milliseconds (default 10)
          --adaptive             the clients share one adaptive rate limiter (AWS's adaptive mode;
                                 a burst of throttles drops the rate once)
          --aws-exact            with --adaptive: drop the rate on every throttle, as AWS's SDKs do
          (--duration defaults to 20 here; --chart works too)

        """

    static func run(_ args: CommandLineArguments) async throws -> Int32 {
        for option in ["--outcomes", "--trace", "--trace-chart", "--request", "--header"] where args.has(option) {
            throw UsageError("\(option) does not go with --clients (fleet mode)")
        }
        if args.has("--server-rate") { return try runRate(args) }
        for option in ["--burst", "--latency", "--adaptive", "--aws-exact"] where args.has(option) {
            throw UsageError("\(option) needs --server-rate (rate mode)")
        }
        var scenario = FleetScenario()
        scenario.clients = try args.integer("--clients", in: 1...10_000) ?? scenario.clients
        scenario.duration = try args.seconds("--duration") ?? scenario.duration
        scenario.interval = try args.seconds("--interval") ?? scenario.interval
        if let text = args.value("--outage") { scenario.outage = try outage(text) }
        var (policy, _, _) = try PolicyOptions.make(from: args)
        if !args.has("--attempts") && !args.has("--retry") && !args.has("--policy") { policy.maxAttempts = 4 }
        scenario.policy = policy
        scenario.budget = try args.value("--budget").flatMap { text throws(UsageError) in try budget(text) }
        let breakDuration = try args.seconds("--break") ?? .seconds(5)
        scenario.breaker = try args.value("--breaker").flatMap { text throws(UsageError) in
            try breaker(text, breakDuration)
        }
        if let text = try args.choice("--when-open", ["wait", "fail"]) {
            scenario.whenCircuitOpen = CircuitOpenBehavior(rawValue: text)!
        }
        if let text = args.value("--seed") {
            guard let seed = UInt64(text) else {
                throw UsageError("--seed needs a whole number from 0, got \"\(text)\"")
            }
            scenario.seed = seed
        }
        let chart = args.value("--chart")
        if let chart {
            try AtomicFile.checkWritable(chart, option: "--chart")
            guard chart.lowercased().hasSuffix(".svg") else { throw UsageError("--chart writes SVG: give a FILE.svg") }
        }
        let report: FleetReport
        do { report = try await FleetSimulation.run(scenario) } catch { throw UsageError(error.description) }
        Console.output(report.text)
        if let chart {
            try AtomicFile.write(Data(FleetChart.svg(report, title: title(args)).utf8), to: chart)
        }
        return 0
    }

    /// Rate mode: clients as fast as they can against a rate limit, with or without the adaptive limiter.
    static func runRate(_ args: CommandLineArguments) throws -> Int32 {
        for option in ["--outage", "--budget", "--breaker", "--break", "--when-open", "--interval"]
        where args.has(option) {
            throw UsageError("\(option) does not go with --server-rate (rate mode)")
        }
        var scenario = AdaptiveSimulation.Scenario()
        scenario.clients = try args.integer("--clients", in: 1...1000) ?? scenario.clients
        guard let rate = args.value("--server-rate").flatMap(Double.init), rate.isFinite, rate >= 0.1, rate <= 100_000
        else {
            throw UsageError(
                "--server-rate needs requests per second from 0.1 to 100000, got \"\(args.value("--server-rate") ?? "")\""
            )
        }
        scenario.serverRate = rate
        scenario.burst = try args.integer("--burst", in: 0...100_000) ?? scenario.burst
        if let latency = try args.integer("--latency", in: 1...10_000) { scenario.latency = .milliseconds(latency) }
        scenario.duration = try args.seconds("--duration") ?? scenario.duration
        scenario.adaptive = args.has("--adaptive")
        if args.has("--aws-exact") {
            guard scenario.adaptive else { throw UsageError("--aws-exact goes with --adaptive") }
            scenario.limiter = .aws
        }
        let chart = args.value("--chart")
        if let chart {
            try AtomicFile.checkWritable(chart, option: "--chart")
            guard chart.lowercased().hasSuffix(".svg") else { throw UsageError("--chart writes SVG: give a FILE.svg") }
        }
        let report: AdaptiveSimulation.Report
        do { report = try AdaptiveSimulation.run(scenario) } catch { throw UsageError(error.description) }
        Console.output(report.text)
        if let chart {
            try AtomicFile.write(Data(AdaptiveSimulation.chart(report).utf8), to: chart)
        }
        return 0
    }

    /// The chart's title: what was protecting the server.
    static func title(_ args: CommandLineArguments) -> String {
        let budget = args.value("--budget") ?? "none"
        let breaker = args.value("--breaker") ?? "none"
        return "\(args.value("--clients") ?? "") clients · budget: \(budget) · breaker: \(breaker)"
    }

    static func outage(_ text: String) throws(UsageError) -> Range<Duration> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
        guard parts.count == 2, let from = parts[0], let to = parts[1], from.isFinite, to.isFinite, from >= 0,
            to >= from,
            to <= 1e6
        else { throw UsageError("--outage needs FROM-TO in seconds, e.g. 10-30, got \"\(text)\"") }
        return Duration.seconds(from)..<Duration.seconds(to)
    }

    static func budget(_ text: String) throws(UsageError) -> RetryBudgetMode? {
        let parts = text.split(separator: ":").map(String.init)
        let mode: RetryBudgetMode?
        switch (parts.first, parts.count) {
        case ("none", 1): mode = nil
        case ("aws", 1): mode = .awsStandard
        case ("aws", 2):
            guard let capacity = Int(parts[1]) else {
                throw UsageError("--budget aws:CAPACITY needs a whole number, got \"\(text)\"")
            }
            mode = .awsStandard(capacity: capacity, retryCost: 5, timeoutRetryCost: 10, successIncrement: 1)
        case ("grpc", 1): mode = .grpc()
        case ("grpc", 3):
            guard let max = Double(parts[1]), let ratio = Double(parts[2]) else {
                throw UsageError("--budget grpc:MAX:RATIO needs two numbers, got \"\(text)\"")
            }
            mode = .grpc(maxTokens: max, tokenRatio: ratio)
        default:
            throw UsageError("--budget must be none, aws, aws:CAPACITY, grpc or grpc:MAX:RATIO, got \"\(text)\"")
        }
        do { try mode?.validate() } catch { throw UsageError("--budget \(text): \(error)") }
        return mode
    }

    static func breaker(_ text: String, _ breakDuration: Duration) throws(UsageError) -> CircuitBreakerOptions? {
        let parts = text.split(separator: ":").map(String.init)
        var options: CircuitBreakerOptions
        switch (parts.first, parts.count) {
        case ("none", 1): return nil
        case ("polly", 1): options = .polly
        case ("consecutive", 2):
            guard let count = Int(parts[1]) else {
                throw UsageError("--breaker consecutive:N needs a whole number, got \"\(text)\"")
            }
            options = CircuitBreakerOptions(trip: .consecutiveFailures(count))
        default:
            throw UsageError("--breaker must be none, polly or consecutive:N, got \"\(text)\"")
        }
        options.breakDuration = breakDuration
        do { try options.validate() } catch { throw UsageError("--breaker \(text): \(error)") }
        return options
    }
}
