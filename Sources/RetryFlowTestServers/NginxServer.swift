import Foundation
import RetryFlow
import RetryFlowTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real nginx (Debian's `nginx-light`) on 127.0.0.1 and an ephemeral port, with a config and a
/// directory of its own: the server tests and benchmarks meet where users meet real servers
/// (strong ETags, ranges, `If-Range`, 416, keep-alive, `limit_req`). FlakyServer stays for scripted
/// faults. One launcher for every test and benchmark that needs nginx.
///
/// It stops on ``stop()``, on release, and when the process that started it dies: a watchdog shell
/// reads a pipe only this process holds open, and stops nginx when the pipe closes.
///
/// ```swift
/// let nginx = try await NginxServer.start(files: ["big.bin": data])
/// defer { nginx.stop() }
/// let (body, _) = try await URLSession.shared.data(from: nginx.url("/big.bin"))
/// ```
package final class NginxServer: Sendable {
    /// The port nginx listens on (127.0.0.1 only).
    package let port: Int
    /// The directory nginx serves (`root`): tests may add, replace or remove files while it runs.
    package let root: URL
    /// nginx's own directory: its config, pid file, logs and temporary files.
    package let directory: URL
    private let running: Locked<Running?>
    /// Whether the watchdog has finished (nginx gone, its directory removed), and who waits for it.
    private let finished: Finished

    private struct Running: Sendable {
        let pid: pid_t
        /// The write end of the watchdog's pipe: closing it (or this process dying) stops nginx.
        let watchdog: FileHandle
    }

    /// What the server is told besides its defaults: directives inside `http { }` (`limit_req_zone …`),
    /// and inside `server { }` (`location /limited { limit_req zone=z; limit_req_status 429; }`).
    package struct Configuration: Sendable {
        /// Directives added inside `http { }`.
        package var http: String = ""
        /// Directives added inside `server { }`, before the default `location / { }`.
        package var server: String = ""
        /// Whether every request is logged to `access.log` (what ``requests()`` reads). Off for load
        /// benchmarks: logging costs the server time the client would be charged for.
        package var accessLog = true
        /// nginx's `keepalive_timeout`.
        package var keepaliveTimeout = "65s"
        /// nginx's `worker_processes`.
        package var workers = 1

        /// The defaults: one worker, every request logged.
        package init(http: String = "", server: String = "", accessLog: Bool = true) {
            self.http = http
            self.server = server
            self.accessLog = accessLog
        }
    }

    private init(port: Int, root: URL, directory: URL, pid: pid_t, watchdog: FileHandle, finished: Finished) {
        self.port = port
        self.root = root
        self.directory = directory
        running = Locked(Running(pid: pid, watchdog: watchdog))
        self.finished = finished
    }

    /// The watchdog's end, awaited by ``waitUntilStopped()``.
    private final class Finished: Sendable {
        private let state = Locked((done: false, waiters: [CheckedContinuation<Void, Never>]()))
        func signal() {
            let waiters = state.withLock { state in
                state.done = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        func wait() async {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if !state.done { state.waiters.append(continuation) }
                    return state.done
                }
                if done { continuation.resume() }
            }
        }
    }

    /// Where nginx is: `$NGINX`, else the first of `/usr/sbin/nginx`, `/usr/local/sbin/nginx`,
    /// `/opt/homebrew/bin/nginx`, `/usr/local/bin/nginx` that exists; nil when none does
    /// (`scripts/install-deps.sh` installs Debian's `nginx-light`).
    package static var executable: String? {
        if let path = ProcessInfo.processInfo.environment["NGINX"], !path.isEmpty { return path }
        let candidates = [
            "/usr/sbin/nginx", "/usr/local/sbin/nginx", "/opt/homebrew/bin/nginx", "/usr/local/bin/nginx",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts nginx serving `files` (name → contents, written under ``root``) with `configuration`.
    /// Returns once nginx listens: in daemon mode the `nginx` command binds its sockets and listens
    /// before it forks and exits, so its exit (awaited, never blocking a thread) is the readiness signal.
    ///
    /// - Throws: ``NginxServerError`` naming what failed (no nginx, a config nginx refuses, no port).
    package static func start(
        files: [String: Data] = [:], configuration: Configuration = Configuration()
    ) async throws -> NginxServer {
        guard let executable else {
            throw NginxServerError("nginx not found (install Debian's nginx-light: scripts/install-deps.sh)")
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("retryflow-nginx-\(UUID().uuidString)", isDirectory: true)
        let root = directory.appendingPathComponent("root", isDirectory: true)
        do {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("temp", isDirectory: true), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            for (name, contents) in files { try contents.write(to: root.appendingPathComponent(name)) }
        } catch {
            throw NginxServerError("cannot prepare \(directory.path): \(error)")
        }
        // The port is found by binding port 0; another socket can take it before nginx binds it, so a
        // refused bind is tried again on a new port.
        var lastFailure = ""
        for _ in 0..<5 {
            let (fd, port) = try LoopbackSocket.bound()
            _ = LoopbackSocket.close(fd)
            let conf = directory.appendingPathComponent("nginx.conf")
            do {
                try text(port: port, root: root, directory: directory, configuration: configuration)
                    .write(to: conf, atomically: true, encoding: .utf8)
            } catch {
                throw NginxServerError("cannot write \(conf.path): \(error)")
            }
            let (status, output) = try await runToExit(
                executable,
                ["-p", directory.path, "-c", conf.path, "-e", directory.appendingPathComponent("error.log").path],
                log: directory.appendingPathComponent("start.log"))
            if status == 0 {
                let pidText = (try? String(contentsOf: directory.appendingPathComponent("nginx.pid"), encoding: .utf8))
                guard let pid = pidText.flatMap({ pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
                    throw NginxServerError("nginx started but wrote no pid file in \(directory.path)")
                }
                let finished = Finished()
                let watchdog = try startWatchdog(pid: pid, directory: directory, finished: finished)
                return NginxServer(
                    port: port, root: root, directory: directory, pid: pid, watchdog: watchdog, finished: finished)
            }
            lastFailure = output
            guard output.contains("Address already in use") else { break }
        }
        try? FileManager.default.removeItem(at: directory)
        throw NginxServerError("nginx did not start: \(lastFailure.trimmingCharacters(in: .whitespacesAndNewlines))")
    }

    /// The URL of `path` on this server.
    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Writes (or replaces, atomically) the file `name` under ``root``.
    package func write(_ contents: Data, to name: String) throws {
        try contents.write(to: root.appendingPathComponent(name), options: .atomic)
    }

    /// The requests logged so far, one line each: `METHOD PATH STATUS BYTES RANGE` (RANGE is the
    /// request's `Range` header, or `-`). Empty when the access log is off.
    package func requests() -> [String] {
        let log = directory.appendingPathComponent("access.log")
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// Stops nginx (fast shutdown). Returns at once; safe to call twice. The watchdog removes nginx's
    /// directory once nginx has removed its pid file (its last act), so no exiting worker writes into
    /// a folder being deleted.
    package func stop() {
        let held = running.withLock { running -> Running? in
            defer { running = nil }
            return running
        }
        guard let held else { return }
        kill(held.pid, SIGTERM)
        try? held.watchdog.close()
    }

    /// Returns once nginx has exited and its directory is gone (after ``stop()``, or the watchdog's end).
    package func waitUntilStopped() async { await finished.wait() }

    deinit { stop() }

    private static func text(port: Int, root: URL, directory: URL, configuration: Configuration) -> String {
        let temp = directory.appendingPathComponent("temp").path
        // As root, nginx's workers would run as `nobody`, who may not read a test's files.
        let user = geteuid() == 0 ? "user root;\n" : ""
        let log =
            configuration.accessLog
            ? """
            log_format retryflow '$request_method $uri $status $body_bytes_sent $http_range';
                access_log \(directory.path)/access.log retryflow;
            """
            : "access_log off;"
        return """
            \(user)daemon on;
            worker_processes \(configuration.workers);
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log warn;
            events { worker_connections 1024; }
            http {
                default_type application/octet-stream;
                \(log)
                sendfile on;
                tcp_nopush on;
                keepalive_timeout \(configuration.keepaliveTimeout);
                keepalive_requests 1000000;
                client_body_temp_path \(temp)/body;
                proxy_temp_path \(temp)/proxy;
                fastcgi_temp_path \(temp)/fastcgi;
                uwsgi_temp_path \(temp)/uwsgi;
                scgi_temp_path \(temp)/scgi;
                \(configuration.http)
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    \(configuration.server)
                    location / { }
                }
            }

            """
    }

    /// Runs `executable` to its exit with its output in `log`, and returns its status and that output.
    /// A ``ChildProcess``, not `Process`: nginx's daemon would inherit the socket corelibs watches
    /// for the child's end, so the `nginx` command never seemed to end (and stayed a zombie).
    private static func runToExit(_ executable: String, _ arguments: [String], log: URL) async throws -> (
        Int32, String
    ) {
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(executable, arguments, output: .file(log.path), error: .standardOutput)
        } catch {
            throw NginxServerError("\(error)")
        }
        let status = await child.exitStatus()
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// A shell that waits for its standard input to close, then stops nginx: this process holds the
    /// pipe's only write end, so nginx stops with it even when it dies without calling ``stop()``.
    private static func startWatchdog(pid: pid_t, directory: URL, finished: Finished) throws -> FileHandle {
        let pipe = Pipe()
        // Bounded (10 s): a pid file nginx cannot remove must not keep the shell forever.
        let script = """
            cat >/dev/null; kill -TERM \(pid) 2>/dev/null
            i=0; while [ -e nginx.pid ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
            cd / && rm -rf '\(directory.path)'
            """
        // Not inherited by processes started later (another nginx, curl): the pipe must close with us.
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        let watchdog: ChildProcess
        do {
            watchdog = try ChildProcess.spawn(
                "/bin/sh", ["-c", script], directory: directory.path,
                input: .descriptor(pipe.fileHandleForReading.fileDescriptor))
        } catch {
            kill(pid, SIGTERM)
            throw NginxServerError("cannot start nginx's watchdog: \(error)")
        }
        try? pipe.fileHandleForReading.close()
        Task {
            _ = await watchdog.exitStatus()
            finished.signal()
        }
        return pipe.fileHandleForWriting
    }
}

/// Why an ``NginxServer`` did not start, in words.
package struct NginxServerError: Error, CustomStringConvertible {
    /// What went wrong.
    package let description: String
    init(_ description: String) { self.description = description }
}
