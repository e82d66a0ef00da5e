import Foundation
import RetryFlow
import RetryFlowHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `retryflow fetch`: a better `curl --retry`.
enum FetchCommand {
    static let specs = PolicyOptions.specs + [
        OptionSpec("-X", "--request"), OptionSpec("-H", "--header", repeatable: true), OptionSpec("-d", "--data"),
        OptionSpec("-o", "--output"), OptionSpec("--trace"), OptionSpec("--trace-chart"),
        OptionSpec("-v", "--verbose", value: false), OptionSpec("-h", "--help", value: false),
    ] + FetchDownload.specs

    static let help = """
        usage: retryflow fetch URL [options]

        Fetches URL, retrying by RetryFlow's rules: transport errors (resets included) and 408, 429,
        500, 502, 503, 504; POST and PATCH only with an Idempotency-Key header or
        --retry-non-idempotent; Retry-After honoured up to a cap. Prints only the final attempt's
        body. Progress goes to stderr. Exit 0 with an answer, 1 when it gives up, 2 for bad usage.

          -X, --request METHOD    the method (default GET, or POST with -d)
          -H, --header 'N: v'     a request header (repeatable)
          -d, --data DATA         the request body (@FILE reads a file)
          -o, --output FILE       stream the body to FILE (atomically) instead of stdout
          --trace FILE.json       write the run's trace
          --trace-chart FILE.svg  write the flowchart with the run drawn over it (.svg, .png, .pdf, .dot)
          -v, --verbose           print the full timeline at the end

        """ + FetchDownload.help + PolicyOptions.help

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard let args = try CommandLineArguments.forCommand(arguments, specs: specs, command: "fetch", help: help, positionals: true)
        else { return 0 }
        guard args.positionals.count == 1 else {
            throw UsageError(args.positionals.isEmpty ? "fetch needs a URL" : "fetch takes one URL, got \(args.positionals.count)")
        }
        let request = try makeRequest(url: args.positionals[0], args: args)
        let (policy, rules) = try PolicyOptions.make(from: args)
        for option in ["--output", "--trace", "--trace-chart"] {
            if let path = args.value(option) { try AtomicFile.checkWritable(path, option: option) }
        }
        let chartFormat = try args.value("--trace-chart").map { path throws(UsageError) in try TraceFiles.chartFormat(for: path, option: "--trace-chart") }
        let downloadOptions = try FetchDownload.options(from: args)

        let configuration = URLSessionConfiguration.ephemeral
        // Linux's URLSession ignores a request's own timeout; the engine enforces --timeout itself.
        configuration.timeoutIntervalForRequest = policy.perAttemptTimeout.map { $0.inSeconds + 1 } ?? 60
        let reporter = ProgressReporter(label: "fetch", maxAttempts: policy.maxAttempts)
        if let path = args.value("--output") {
            // To a file: streamed, resumed after a cut, renamed into place when whole (FetchDownload).
            let (status, outcome) = try await FetchDownload.run(
                request, to: path, options: downloadOptions, policy: policy, rules: rules, configuration: configuration,
                reporter: reporter, args: args)
            try report(outcome, args: args, chartFormat: chartFormat)
            return status
        }
        let outcome = try await URLSession(configuration: configuration).retryOutcome(
            for: request, retry: policy, rules: rules, clock: ContinuousClock(), onTransition: reporter.record)
        try report(outcome, args: args, chartFormat: chartFormat)

        switch outcome.httpResult {
        case .success(let answer):
            Console.output(answer.data)
            let note = outcome.succeeded ? "" : " (\(outcome.reason.rawValue): not retried)"
            Console.error("fetch: HTTP \(answer.statusCode), \(answer.data.count) bytes after \(outcome.attempts.count) attempt(s) in \(outcome.duration.shortDescription)\(note)")
            return 0
        case .failure(let error):
            Console.error(Console.paint("fetch: \(error.description)", .bad))
            return 1
        }
    }

    /// Writes what --trace, --trace-chart and --verbose ask for.
    private static func report(
        _ outcome: RetryOutcome<HTTPResponse>, args: CommandLineArguments, chartFormat: String?
    ) throws(OperationFailed) {
        if let path = args.value("--trace") { try TraceFiles.writeTrace(outcome.trace, to: path) }
        if let path = args.value("--trace-chart"), let chartFormat {
            try TraceFiles.writeChart(outcome.trace, to: path, format: chartFormat)
        }
        if args.has("--verbose") { Console.error(Timeline.render(outcome.trace, reason: outcome.reason)) }
    }

    static func makeRequest(url text: String, args: CommandLineArguments) throws(UsageError) -> URLRequest {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw UsageError("bad URL \"\(text)\": give an http:// or https:// URL with a host")
        }
        var request = URLRequest(url: url)
        let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for header in args.all("--header") {
            guard let colon = header.firstIndex(of: ":") else {
                throw UsageError("bad header \"\(header)\": write it as 'Name: value'")
            }
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.allSatisfy({ tokenCharacters.contains($0) }) else {
                throw UsageError("bad header \"\(header)\": \"\(name)\" is not a header name")
            }
            guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw UsageError("bad header \"\(name)\": a value cannot contain line breaks")
            }
            request.addValue(value, forHTTPHeaderField: name)
        }
        if let data = args.value("--data") {
            if data.hasPrefix("@") {
                let path = String(data.dropFirst())
                guard let contents = FileManager.default.contents(atPath: path) else { throw UsageError("-d @\(path): cannot read the file") }
                request.httpBody = contents
            } else {
                request.httpBody = Data(data.utf8)
            }
            request.httpMethod = "POST"
        }
        if let method = args.value("--request") {
            guard !method.isEmpty, method.allSatisfy({ tokenCharacters.contains($0) }) else {
                throw UsageError("bad method \"\(method)\"")
            }
            request.httpMethod = method.uppercased()
        }
        return request
    }
}
