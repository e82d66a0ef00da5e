import Foundation
import RetryFlow
import RetryFlowCharts
import RetryFlowHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `retryflow fetch`: a better `curl --retry`.
enum FetchCommand {
    static let specs =
        PolicyOptions.specs + HedgeOptions.specs + CurlOptions.specs + FetchDownload.specs + FetchCredentials.specs + [
            OptionSpec("-X", "--request"), OptionSpec("-H", "--header", repeatable: true), OptionSpec("-d", "--data"),
            OptionSpec("-o", "--output"), OptionSpec("--trace"), OptionSpec("--trace-chart"),
            TraceFiles.reportSpec, OptionSpec("-v", "--verbose", value: false),
            OptionSpec("-h", "--help", value: false),
        ]

    static let help = """
        usage: retryflow fetch URL [options]

        Fetches URL, retrying by RetryFlow's rules: transport errors (resets included) and 408, 429,
        500, 502, 503, 504; POST and PATCH only with an Idempotency-Key header or
        --retry-non-idempotent; Retry-After and the RateLimit-Reset, X-RateLimit-Reset and IETF
        RateLimit headers honoured (the longest wait asked for) up to a cap. Prints only the final
        attempt's body when the run delivers it. Progress and a summary go to stderr; the summary
        says which row of this table chose the exit status.

        """ + "\n" + FetchExit.helpText + "\n" + """

              -X, --request METHOD    the method (default GET, or POST with -d)
              -H, --header 'N: v'     a request header (repeatable)
              -d, --data DATA         the request body (@FILE reads a file)
              -o, --output FILE       stream the body to FILE (atomically) instead of stdout (- is stdout)
              --trace FILE.json       write the run's trace
              --trace-chart FILE.svg  write the flowchart with the run drawn over it (.svg, .png, .pdf, .dot)
              -v, --verbose           print the full timeline at the end
            """ + "\n" + FetchCredentials.help + "\n" + TraceFiles.reportHelp(column: 26) + "\n" + FetchDownload.help
        + "\n"
        + CurlOptions.help
        + PolicyOptions.help + "\n" + HedgeOptions.help

    static func run(_ arguments: [String]) async throws -> Int32 {
        guard
            let args = try CommandLineArguments.forCommand(
                arguments, specs: specs, command: "fetch", help: help, positionals: true,
                unknownNote: "a curl option not listed there is not supported by retryflow")
        else { return 0 }
        guard args.positionals.count == 1 else {
            throw UsageError(
                args.positionals.isEmpty ? "fetch needs a URL" : "fetch takes one URL, got \(args.positionals.count)")
        }
        var request = try makeRequest(url: args.positionals[0], args: args)
        let (policy, rules, fileHedging) = try PolicyOptions.make(from: args)
        var options = HTTPRetryOptions(policy, rules: rules)
        let failOnError = args.has("--fail") || args.has("--fail-with-body")
        try applyCurlRules(args, failOnError: failOnError, to: &options.rules)
        try FetchCredentials.apply(args, to: &request, options: &options)
        let writeOut = try args.value("--write-out").map { format throws(UsageError) in try WriteOut(format) }
        let maxFileSize = try CurlOptions.byteCount("--max-filesize", in: args)
        options.rules.maxBodyBytes = maxFileSize
        let connectTimeout = try args.seconds("--connect-timeout")
        if let connectTimeout, connectTimeout <= .zero { throw UsageError("--connect-timeout must be more than 0") }
        // A link (`-o /dev/stdout` redirected to a file) is followed: the download's FILE.part and its
        // rename go beside the file it points to, never over the link.
        let output = try outputPath(args, url: request.url!).map(AtomicFile.target)
        // Every -o/-O with a body streams to disk (FetchDownload: FILE.part, resumes, -C -, --sha256);
        // -I asks for no body, so its head is written as stdout's is. Output to stdout stays in memory,
        // and so does output to a device or FIFO (-o /dev/null): it is written into, never renamed over.
        let streamed = output.map { !AtomicFile.isSpecial($0) } ?? false && request.httpMethod?.uppercased() != "HEAD"
        let downloadOptions = try FetchDownload.options(from: args, streamed: streamed)
        try HedgeOptions.apply(args, file: fileHedging, to: &options, streamed: streamed)
        // The options as the surfaces will check them (the credential step against the status rules).
        do { try options.validate() } catch { throw UsageError(error.description) }
        for (option, path) in [
            ("--output", output), ("--trace", args.value("--trace")), ("--trace-chart", args.value("--trace-chart")),
        ] {
            if let path { try AtomicFile.checkWritable(path, option: option) }
        }
        let chartFormat = try args.value("--trace-chart").map { path throws(UsageError) in
            try TraceFiles.chartFormat(for: path, option: "--trace-chart")
        }
        try TraceFiles.checkReport(args)
        let silent = args.has("--silent")
        let showErrors = !silent || args.has("--show-error")

        let configuration = URLSessionConfiguration.ephemeral
        // Linux's URLSession ignores a request's own timeout; the engine enforces --timeout itself.
        // --connect-timeout can only be this idle timeout (URLSession has no connect-only one). On
        // Linux it counts whole seconds (1.5 acts as 1, 0.3 fails at once: measured), so round up.
        // It is also what ends a stalled download (downloads have no default per-attempt timeout).
        var idle = options.policy.perAttemptTimeout.map { $0.inSeconds + 1 } ?? 60
        if let connectTimeout { idle = min(idle, max(1, connectTimeout.inSeconds.rounded(.up))) }
        configuration.timeoutIntervalForRequest = idle
        // No URLCache, as curl keeps none: then an attempt that ends (a timeout, --max-time) has its
        // data task cancelled, which frees the connection and stops libcurl's busy loop on it at
        // once (docs/reliability.md, "URLSession spins while it waits"); with a cache the task would
        // be abandoned and spin until the server answered.
        configuration.urlCache = nil
        let reporter = silent ? nil : ProgressReporter(label: "fetch", maxAttempts: options.policy.maxAttempts)
        let outcome: RetryOutcome<HTTPResponse>
        var download: DownloadOutcome?
        if let output, streamed {
            let done = try await FetchDownload.run(
                request, to: output, retry: options, download: downloadOptions,
                configuration: configuration, reporter: reporter, args: args)
            download = done
            outcome = done.retry
        } else {
            let session = URLSession(
                configuration: configuration, delegate: CredentialSafeRedirects(), delegateQueue: nil)
            options.onTransition = reporter.map { $0.record }
            outcome = try await session.retryOutcome(for: request, retry: options)
        }
        if let path = args.value("--trace") {
            try TraceFiles.writeTrace(outcome.trace, races: outcome.hedging, to: path)
        }
        if let path = args.value("--trace-chart"), let chartFormat {
            try TraceFiles.writeChart(outcome.trace, to: path, format: chartFormat, table: options.policy.table)
        }
        try TraceFiles.writeReport(
            outcome.trace, title: "\(request.httpMethod ?? "GET") \(Redaction.redact(request.url!))",
            reason: outcome.reason, policy: options.policy, races: outcome.hedging, args: args)
        if args.has("--verbose") {
            Console.error(Timeline.render(outcome.trace, of: options.policy.table, reason: outcome.reason))
            HedgeOptions.lines(outcome).forEach(Console.error)
        }

        let answer = outcome.value
        let verdict = FetchExit(
            outcome: outcome, failOnError: failOnError, bodyWithFailure: args.has("--fail-with-body"),
            limitsBody: maxFileSize != nil, fileComplete: download?.succeeded ?? false)
        let include = args.has("--include") || args.has("--head")
        // As curl: a body not written (-f, --max-filesize) was not downloaded either.
        var sizeDownload = args.has("--head") || !verdict.writesBody ? 0 : answer?.data.count ?? 0
        if let download, let output {
            sizeDownload = try FetchDownload.place(download, at: output, verdict: verdict, include: include)
        } else if let answer, verdict.writesBody {
            var data = Data()
            if include { data += Data(head(of: answer.response).utf8) }
            if !args.has("--head") { data += answer.data }
            if let output { try AtomicFile.write(data, to: output) } else { Console.output(data) }
        }
        if showErrors, let download, verdict.status != 0, verdict.problem == nil, !download.succeeded {
            // The file's side of a failed download: why, and what is kept to continue with -C -.
            Console.error(Console.paint("fetch: \(DownloadError(outcome: download))", .bad))
            if download.bytesOnDisk > 0 {
                Console.error("fetch: run again with -C - to continue from byte \(download.bytesOnDisk)")
            }
        } else if showErrors, case .failure(let error) = outcome.result {
            Console.error(Console.paint("fetch: \(error.description)", .bad))
        } else if showErrors, let problem = verdict.problem {
            Console.error(Console.paint("fetch: \(problem)", .bad))
        } else if silent && showErrors && verdict.status != 0 {
            // -sS hides the summary, which was the only line saying why (a POST's 503 not retried).
            Console.error(Console.paint("fetch: exit \(verdict.status): \(verdict.rule)", .bad))
        }
        if !silent {
            var what = answer.map { "HTTP \($0.statusCode), \($0.data.count) bytes" } ?? "no answer"
            if let download, let output, download.succeeded {
                let code = download.response.map { "HTTP \($0.statusCode), " } ?? ""
                what = "\(code)\(ByteCount.describe(download.bytesOnDisk)) in \(output)"
            } else if let download, let status = download.ranges.last?.status {
                // A download that failed after an answer (a SHA-256 mismatch, a cut body) did get one.
                what = "HTTP \(status), no complete \(output ?? "file")"
            }
            let resumed = download?.transfer.resumeSummary.map { " (\($0))" } ?? ""
            Console.error(
                "fetch: \(what) after \(outcome.attempts.count) attempt(s)\(HedgeOptions.summary(outcome)) in "
                    + "\(outcome.duration.shortDescription)\(resumed); exit \(verdict.status): \(verdict.rule)")
        }
        if let writeOut {
            Console.output(
                writeOut.render(
                    WriteOut.Values(
                        httpCode: answer?.statusCode ?? download?.ranges.last?.status,
                        retries: max(0, outcome.attempts.count - 1), timeTotal: outcome.duration,
                        sizeDownload: sizeDownload,
                        urlEffective: Redaction.redact(answer?.response.url ?? request.url!), exitCode: verdict.status,
                        finalState: outcome.finalState.label, stopReason: outcome.reason.rawValue)))
        }
        return verdict.status
    }

    /// The rules the curl flags change: with -f every status >= 400 ends the run in failure (so the
    /// machine, not a later check, decides the exit status); every transport error (and with -f
    /// every status >= 400) for --retry-all-errors; the attempt header.
    static func applyCurlRules(_ args: CommandLineArguments, failOnError: Bool, to rules: inout HTTPRetryRules)
        throws(UsageError)
    {
        if failOnError { rules.failingStatuses = Set(400...599) }
        if args.has("--retry-all-errors") {
            // Every URLError code but cancellation (never retried anyway), and with -f every error status.
            rules.retryableErrorCodes = Set((-3100)...(-1)).subtracting([URLError.Code.cancelled.rawValue])
            if failOnError { rules.retryableStatuses.formUnion(400...599) }
        }
        if let name = args.value("--attempt-header") {
            guard isToken(name) else {
                throw UsageError("--attempt-header needs a header name, got \"\(name)\"")
            }
            rules.attemptHeader =
                name.lowercased() == AttemptHeader.grpcPreviousAttempts.name
                ? .grpcPreviousAttempts : AttemptHeader(name: name)
        }
    }

    /// Where the body goes: -o FILE, -O (the URL's last path segment), or stdout (`nil`);
    /// --create-dirs makes the folders first.
    static func outputPath(_ args: CommandLineArguments, url: URL) throws(UsageError) -> String? {
        if args.has("--output") && args.has("--remote-name") { throw UsageError("give -o FILE or -O, not both") }
        // `-o -` is stdout, as in curl (not a file named "-").
        var path = args.value("--output").flatMap { $0 == "-" ? nil : $0 }
        if args.has("--remote-name") {
            let name = url.lastPathComponent
            // lastPathComponent decodes %2F: a name with a slash in it would write elsewhere.
            guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
                throw UsageError("-O: the URL \(Redaction.redact(url)) has no file name in its path; use -o FILE")
            }
            path = name
        }
        if let path, args.has("--create-dirs") {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw UsageError("--create-dirs: cannot create \(folder.path): \(error.localizedDescription)")
            }
        }
        return path
    }

    /// The response head as -i and -I print it: status line, headers (sorted: URLSession keeps no
    /// order), blank line.
    static func head(of response: HTTPURLResponse) -> String {
        let reason = HTTPURLResponse.localizedString(forStatusCode: response.statusCode)
        var text = "HTTP/1.1 \(response.statusCode) \(reason)\r\n"
        let fields = response.allHeaderFields.compactMap { key, value in (key as? String).map { ($0, "\(value)") } }
        for (name, value) in fields.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
            text += "\(name): \(value)\r\n"
        }
        return text + "\r\n"
    }

    static func makeRequest(url text: String, args: CommandLineArguments) throws(UsageError) -> URLRequest {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            // ftp://user:password@host is a bad URL that still holds a secret: redacted. Anything
            // else is quoted as typed (URL(string:) would percent-encode a space).
            let withSecret = URL(string: text).flatMap { $0.user != nil || $0.password != nil ? $0 : nil }
            let shown = withSecret.map(Redaction.redact) ?? text
            throw UsageError("bad URL \"\(shown)\": give an http:// or https:// URL with a host")
        }
        var request = URLRequest(url: url)
        for header in args.all("--header") {
            guard let colon = header.firstIndex(of: ":") else {
                throw UsageError(
                    "bad header: -H without a colon (\(header.count) characters, not shown: it may be a secret); "
                        + "write it as 'Name: value'")
            }
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard isToken(name) else {
                throw UsageError("bad header \"\(header)\": \"\(name)\" is not a header name")
            }
            guard !hasLineBreak(value) else {
                throw UsageError("bad header \"\(name)\": a value cannot contain line breaks")
            }
            request.addValue(value, forHTTPHeaderField: name)
        }
        if let credentials = args.value("--user") {
            // Sent as a header, which is never written to traces, charts or progress lines.
            guard credentials.contains(":") else {
                throw UsageError("-u/--user needs USER:PASSWORD (retryflow does not prompt for a password)")
            }
            request.setValue(
                "Basic " + Data(credentials.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        for (option, header) in [("--user-agent", "User-Agent"), ("--referer", "Referer")] {
            guard let value = args.value(option) else { continue }
            guard !hasLineBreak(value) else {
                throw UsageError("\(option): a header value cannot contain line breaks")
            }
            request.setValue(value, forHTTPHeaderField: header)
        }
        if args.has("--head") {
            guard !args.has("--data") else { throw UsageError("-I/--head sends HEAD; it cannot go with -d/--data") }
            request.httpMethod = "HEAD"
        }
        if let data = args.value("--data") {
            if data.hasPrefix("@") {
                let path = String(data.dropFirst())
                guard let contents = FileManager.default.contents(atPath: path) else {
                    throw UsageError("-d @\(path): cannot read the file")
                }
                request.httpBody = contents
            } else {
                request.httpBody = Data(data.utf8)
            }
            request.httpMethod = "POST"
        }
        if let method = args.value("--request") {
            guard isToken(method) else {
                throw UsageError("bad method \"\(method)\"")
            }
            request.httpMethod = method.uppercased()
        }
        return request
    }

    private static let tokenCharacters = Set(
        "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")

    /// Whether `text` is an HTTP token (RFC 9110 §5.6.2): a header name or a method.
    static func isToken(_ text: String) -> Bool { !text.isEmpty && text.allSatisfy { tokenCharacters.contains($0) } }

    /// Whether `value` would break out of its header line.
    static func hasLineBreak(_ value: String) -> Bool {
        value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
    }
}
