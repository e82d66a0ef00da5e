import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`, for the tests and benchmarks that run programs
/// (`retryflow`, nginx, curl, wrk) from a process full of sockets.
///
/// Not Foundation's `Process`, for two reasons measured here:
/// - On Linux, `Process.run()` crashes now and then in a process with many descriptors open
///   (`findMaximumOpenFromProcSelfFD` copies a whole 256-byte `d_name` from a shorter `readdir`
///   record and reads past glibc's buffer: swift-corelibs-foundation PR #5472, not in 6.3.1). It
///   took down a whole test run (1 of 5 under load) from `Tool.run`.
/// - corelibs learns that a child ended when a socket it hands the child closes, so a child that
///   leaves a daemon behind (nginx) never seemed to end.
///
/// The child gets nothing of this process's but its environment: every descriptor above 2 is
/// closed in it, so no test's socket stays open in a daemon. Its end is awaited on a thread of
/// its own, never on Swift's.
package struct ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A file, created or truncated.
        case file(String)
        /// A descriptor of this process (duplicated into the child).
        case descriptor(Int32)
        /// The same as the child's standard output (for standard error).
        case standardOutput
    }

    /// The child's process id.
    package let pid: pid_t

    /// Starts `executable` with `arguments` (not including itself), `environment` (default: this
    /// process's), in `directory` (default: this process's).
    ///
    /// - Throws: ``ChildProcessError`` naming the program when it cannot be started.
    package static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: Stream = .null, output: Stream = .null, error: Stream = .null
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        redirect(&actions, 0, input, flags: O_RDONLY)
        redirect(&actions, 1, output, flags: O_WRONLY | O_CREAT | O_TRUNC)
        redirect(&actions, 2, error, flags: O_WRONLY | O_CREAT | O_TRUNC)
        closeInheritedDescriptors(&actions)
        if let directory {
            guard changeDirectory(&actions, directory) else {
                throw ChildProcessError(
                    "cannot run \(executable) in \(directory): this C library cannot set a child's directory")
            }
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        // Signals as a fresh program expects them: none blocked (this thread may block some) and
        // each at its default action (this process ignores SIGPIPE), as Foundation's Process does.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let spawned =
            envp.map { posix_spawn(&pid, executable, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw ChildProcessError("cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        return ChildProcess(pid: pid)
    }

    /// Waits for the child to end, on a thread of its own, and returns its exit status, or 128 plus
    /// the signal that ended it (as a shell reports it).
    package func exitStatus() async -> Int32 {
        let child = pid
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 && errno == EINTR {}
                // WIFEXITED and WEXITSTATUS, spelled out: the C macros are not imported.
                let signal = status & 0x7f
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xff : 128 + signal)
            }
        }
    }

    private static func redirect(
        _ actions: inout posix_spawn_file_actions_t, _ target: Int32, _ stream: Stream, flags: Int32
    ) {
        switch stream {
        case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", flags & ~(O_CREAT | O_TRUNC), 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o644)
        case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
        case .standardOutput: posix_spawn_file_actions_adddup2(&actions, 1, target)
        }
    }

    /// Makes the child close every descriptor above 2: glibc's `posix_spawn_file_actions_addclosefrom_np`
    /// (2.34+, found at run time: Swift does not import it), else each descriptor open now.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        #if os(Linux)
            if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
                _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
                return
            }
        #endif
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }

    /// Sets the child's directory with glibc's `posix_spawn_file_actions_addchdir_np` (2.29+, found
    /// at run time like `closefrom`); false where there is none.
    private static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, _ directory: String) -> Bool {
        typealias ChangeDirectory =
            @convention(c) (
                UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>
            ) -> Int32
        #if os(Linux)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
            else { return false }
            return directory.withCString { unsafeBitCast(symbol, to: ChangeDirectory.self)(&actions, $0) } == 0
        #else
            return posix_spawn_file_actions_addchdir_np(&actions, directory) == 0
        #endif
    }
}

/// Why a ``ChildProcess`` did not start, in words.
package struct ChildProcessError: Error, CustomStringConvertible {
    /// What went wrong.
    package let description: String
    init(_ description: String) { self.description = description }
}
