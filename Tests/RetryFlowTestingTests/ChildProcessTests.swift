import Foundation
import RetryFlowTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The spawner the tests and benchmarks run programs with (instead of Foundation's `Process`).
@Suite struct ChildProcessTests {
    private static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func exitStatusOutputEnvironmentAndDirectoryReachTheChild() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        let child = try ChildProcess.spawn(
            "/bin/sh", ["-c", "echo \"$GREETING\"; pwd; echo oops >&2; exit 7"],
            environment: ["GREETING": "hello", "PATH": "/usr/bin:/bin"], directory: folder.path,
            output: .file(out), error: .standardOutput)
        #expect(await child.exitStatus() == 7)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "hello")
        #expect(
            lines.dropFirst().first.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
                == folder.resolvingSymlinksInPath().path)
        #expect(lines.last == "oops")
    }

    @Test func aSignalIsReportedAsAShellWould() async throws {
        let child = try ChildProcess.spawn("/bin/sh", ["-c", "kill -TERM $$"])
        #expect(await child.exitStatus() == 128 + SIGTERM)
    }

    /// With a hundred more descriptors open here, the child still has only its three: no test's
    /// socket stays open in a daemon it starts.
    @Test func theChildInheritsNoDescriptorAboveTwo() async throws {
        let opened = (0..<100).map { _ in open("/dev/null", O_RDONLY) }
        defer { for fd in opened { close(fd) } }
        #expect(opened.allSatisfy { $0 > 2 })
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("fds").path
        // `exec ls` lists the shell's own descriptors: ls opens one more for the listing.
        let child = try ChildProcess.spawn("/bin/sh", ["-c", "exec ls /proc/self/fd"], output: .file(out))
        #expect(await child.exitStatus() == 0)
        let listed = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
        #expect(listed.filter { $0 > 3 } == [], "inherited: \(listed)")
    }

    @Test func aMissingProgramIsAnErrorNamingIt() {
        #expect {
            try ChildProcess.spawn("/no/such/program", [])
        } throws: { error in
            "\(error)".contains("/no/such/program")
        }
    }
}
