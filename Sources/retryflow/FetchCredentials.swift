import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `fetch --oauth2-bearer TOKEN` (curl's flag) and `--auth-refresh CMD`: the bearer token on every
/// request, and the library's credential step (`CredentialRefresh`) running CMD for a new one on a 401.
enum FetchCredentials {
    static let specs = [OptionSpec("--oauth2-bearer"), OptionSpec("--auth-refresh")]

    static let help = """
          --oauth2-bearer TOKEN   send 'Authorization: Bearer TOKEN' (never in traces, charts,
                                  reports or progress lines)
          --auth-refresh CMD      on a 401, run CMD with /bin/sh: the first line it prints is the new
                                  token, sent on the resend (the step 'check credential' and its
                                  exit 'refreshed' in the trace); a non-zero exit is a failed
                                  refresh (exit 1); at most 2 refreshes a run, 5 in 30 s; without
                                  --oauth2-bearer, CMD runs before the first send
        """

    /// Puts the token on `request`, or with `--auth-refresh` the credential step in `options`.
    static func apply(
        _ args: CommandLineArguments, to request: inout URLRequest, options: inout HTTPRetryOptions
    ) throws(UsageError) {
        let token = args.value("--oauth2-bearer")
        let command = args.value("--auth-refresh")
        guard token != nil || command != nil else { return }
        if args.has("--user") { throw UsageError("give -u/--user or --oauth2-bearer/--auth-refresh, not both") }
        if let token, token.isEmpty || FetchCommand.hasLineBreak(token) || token.contains(" ") {
            throw UsageError("--oauth2-bearer needs a token without spaces or line breaks")
        }
        guard let command else {
            request.setValue("Bearer \(token!)", forHTTPHeaderField: "Authorization")
            return
        }
        if command.trimmingCharacters(in: .whitespaces).isEmpty { throw UsageError("--auth-refresh needs a command") }
        // With no token to start from, the empty one is known expired: the command runs before the first send.
        let store = CredentialStore(token ?? "", isExpired: { $0.isEmpty }) { _ in try await runRefresh(command) }
        let refresh = CredentialRefresh(store) { token, request in
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        request.setValue(nil, forHTTPHeaderField: "Authorization")
        refresh.install(in: &options)
    }

    /// Why the refresh command gave no token (its output is never shown: it may hold a secret).
    struct RefreshCommandFailed: Error, CustomStringConvertible {
        let problem: String
        var description: String { "the --auth-refresh command \(problem)" }
    }

    /// Runs `command` with `/bin/sh -c`; its stderr goes to ours, the first line of its stdout is the token.
    static func runRefresh(_ command: String) async throws -> String {
        let output = Pipe()
        let child: ChildProcess
        do {
            // A ChildProcess, not Foundation's Process (whose run() can crash: see ChildProcess).
            child = try ChildProcess.spawn(
                "/bin/sh", ["-c", command], output: .descriptor(output.fileHandleForWriting.fileDescriptor),
                error: .descriptor(2))
        } catch {
            throw RefreshCommandFailed(problem: "could not start: \(error)")
        }
        try? output.fileHandleForWriting.close() // the child holds the only write end: its exit ends the read
        // Read to the end on a thread of its own (a blocking read), never on Swift's.
        let data: Data = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: output.fileHandleForReading.readDataToEndOfFile()) }
        }
        let status = await child.exitStatus()
        guard status == 0 else { throw RefreshCommandFailed(problem: "exited with status \(status)") }
        let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first
        let token = line.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty, !token.contains(" ") else {
            throw RefreshCommandFailed(problem: "printed no token on its first line")
        }
        return token
    }
}
