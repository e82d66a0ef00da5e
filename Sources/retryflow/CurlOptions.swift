import Foundation

/// The curl flags `retryflow fetch` takes where scripts use them, as rows of its option table;
/// flags it refuses (`-k`) and curl flags it does not support are rows too, so they get a clear
/// message instead of "unknown option". Add a flag here (and a line to `help`) to support it.
enum CurlOptions {
    static let specs: [OptionSpec] =
        [
            OptionSpec("-f", "--fail", value: false), OptionSpec("--fail-with-body", value: false),
            OptionSpec("-s", "--silent", value: false), OptionSpec("-S", "--show-error", value: false),
            OptionSpec("-L", "--location", value: false), OptionSpec("-i", "--include", value: false),
            OptionSpec("-I", "--head", value: false), OptionSpec("-O", "--remote-name", value: false),
            OptionSpec("--create-dirs", value: false), OptionSpec("-w", "--write-out"), OptionSpec("-u", "--user"),
            OptionSpec("-A", "--user-agent"), OptionSpec("-e", "--referer"),
            OptionSpec("--retry-all-errors", value: false), OptionSpec("--retry-connrefused", value: false),
            OptionSpec("--connect-timeout"), OptionSpec("--compressed", value: false), OptionSpec("--max-filesize"),
            OptionSpec("--attempt-header"), OptionSpec("-C", "--continue-at"), OptionSpec("--speed-limit"),
            OptionSpec("--speed-time"),
            OptionSpec(
                "-k", "--insecure", value: false,
                refused: "refused: retryflow never weakens TLS checks (fix the certificate, or trust its CA)"),
        ]
        + unsupported.map {
            OptionSpec(names: $0.names, value: $0.value, refused: "a curl option not supported by retryflow")
        }

    /// curl flags scripts use that fetch does not take (with whether each takes a value, so the
    /// message names the flag and not its value).
    static let unsupported: [(names: [String], value: Bool)] = [
        (["-#", "--progress-bar"], false), (["-b", "--cookie"], true), (["-c", "--cookie-jar"], true),
        (["-F", "--form"], true), (["-G", "--get"], false), (["-x", "--proxy"], true), (["-T", "--upload-file"], true),
        (["-r", "--range"], true), (["-z", "--time-cond"], true), (["-E", "--cert"], true), (["--cacert"], true),
        (["--capath"], true), (["--key"], true), (["--resolve"], true), (["--connect-to"], true),
        (["--data-binary"], true), (["--data-raw"], true), (["--data-urlencode"], true), (["--json"], true),
        (["-N", "--no-buffer"], false), (["-K", "--config"], true), (["-0", "--http1.0"], false),
        (["--http1.1"], false), (["--http2"], false), (["--http3"], false), (["--limit-rate"], true),
        (["--max-redirs"], true), (["--proto"], true), (["--tlsv1.2"], false), (["--tlsv1.3"], false),
        (["-4", "--ipv4"], false), (["-6", "--ipv6"], false), (["--interface"], true), (["-n", "--netrc"], false),
        (["--digest"], false), (["--ntlm"], false), (["--negotiate"], false), (["--anyauth"], false),
        (["-j", "--junk-session-cookies"], false), (["-R", "--remote-time"], false),
        (["-J", "--remote-header-name"], false),
        (["-D", "--dump-header"], true), (["--trace-ascii"], true), (["--stderr"], true), (["-q", "--disable"], false),
    ]

    static let help = """

        curl's flags (same meaning unless said):
          -f, --fail              an HTTP status of 400 or more exits 1 and writes no body (curl exits 22)
          --fail-with-body        the same, but the body is written
          -s, --silent            no progress, no summary, no error message (add -S for errors)
          -S, --show-error        with -s, still print why it failed
          -L, --location          accepted: redirects are always followed (URLSession follows them
                                  itself; without -L curl would not)
          -i, --include           print the response head before the body (headers as URLSession
                                  reports them: order and case may differ from the wire)
          -I, --head              send HEAD and print the response head only
          -O, --remote-name       write to the URL's last path segment in the current folder
          --create-dirs           create the folders of -o/-O's path
          -w, --write-out FORMAT  print FORMAT after the transfer: %{http_code} %{num_retries}
                                  %{time_total} %{size_download} %{url_effective} %{exitcode}
                                  %{final_state} %{stop_reason}, \\n \\t \\\\ %%
          -u, --user USER:PASS    basic authentication (never in traces, charts or progress lines);
                                  as in curl, not sent on when a redirect leaves the host and port
          -A, --user-agent NAME   the User-Agent header
          -e, --referer URL       the Referer header
          --retry-all-errors      retry every transport error, and with -f every status >= 400
                                  (POST and PATCH still need a key or --retry-non-idempotent)
          --retry-connrefused     accepted: refused connections are always retried
          --connect-timeout S     URLSession has no connect-only timeout: this sets its idle
                                  timeout, so an attempt also fails when S seconds pass without a
                                  byte (connecting, a slow answer, a stalled body); retried;
                                  whole seconds, rounded up
          --compressed            accepted: URLSession always asks for compressed bodies and decodes them
          --max-filesize BYTES    a body larger than BYTES (k, M, G suffixes) fails with exit 1,
                                  and nothing is written
          -C, --continue-at -     continue from the size of FILE (or FILE.part) an earlier run left;
                                  only '-' (needs -o/-O)
          --speed-limit BYTES     an attempt slower than BYTES/s for --speed-time is a stall: retried,
                                  resuming (default off; needs -o/-O)
          --speed-time SECONDS    how long the rate may stay below --speed-limit (default 30)
          --attempt-header NAME   send the attempt number (1, 2 …) in header NAME, e.g.
                                  RetryFlow-Attempt; grpc-previous-rpc-attempts counts previous ones
          -k, --insecure          refused: retryflow never weakens TLS checks
        Other curl flags say "not supported by retryflow".

        retry policy (curl's names accepted):

        """

    /// `--max-filesize`: bytes, with curl's k, M and G suffixes (powers of 1024).
    static func byteCount(_ key: String, in args: CommandLineArguments) throws(UsageError) -> Int? {
        guard let text = args.value(key) else { return nil }
        var digits = Substring(text)
        var scale = 1
        switch digits.last {
        case "k", "K": scale = 1 << 10
        case "m", "M": scale = 1 << 20
        case "g", "G": scale = 1 << 30
        default: break
        }
        if scale > 1 { digits = digits.dropLast() }
        guard let number = Int(digits), number >= 0 else {
            throw UsageError("\(key) needs a number of bytes (k, M, G suffixes allowed), got \"\(text)\"")
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: scale)
        guard !overflow else { throw UsageError("\(key) is too large: \(text)") }
        return bytes
    }
}
