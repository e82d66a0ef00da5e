import Foundation
import RetryFlowTestServers
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The launcher every nginx test and benchmark uses: a real nginx on loopback that serves files,
/// answers ranges, logs requests and goes away when stopped.
@Suite(.timeLimit(.minutes(1))) struct NginxServerTests {
    private func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        return URLSession(configuration: configuration)
    }

    @Test func servesFilesRangesAndLogsEachRequest() async throws {
        let body = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        let nginx = try await NginxServer.start(files: ["file.bin": body])
        defer { nginx.stop() }
        #expect(nginx.url("/").host == "127.0.0.1")
        let session = session()
        let (whole, response) = try await session.data(from: nginx.url("/file.bin"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(whole == body)

        var ranged = URLRequest(url: nginx.url("/file.bin"))
        ranged.setValue("bytes=100-199", forHTTPHeaderField: "Range")
        let (part, partial) = try await session.data(for: ranged)
        #expect((partial as? HTTPURLResponse)?.statusCode == 206)
        #expect(part == body[100..<200])
        #expect((partial as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag") != nil)

        #expect(nginx.requests() == ["GET /file.bin 200 10000 -", "GET /file.bin 206 100 bytes=100-199"])
    }

    @Test func extraDirectivesReachTheConfig() async throws {
        let limited = NginxServer.Configuration(server: "location /teapot { return 418; }")
        let nginx = try await NginxServer.start(configuration: limited)
        defer { nginx.stop() }
        let (_, response) = try await session().data(from: nginx.url("/teapot"))
        #expect((response as? HTTPURLResponse)?.statusCode == 418)
    }

    @Test func aConfigNginxRefusesIsANamedError() async throws {
        let broken = NginxServer.Configuration(http: "no_such_directive on;")
        await #expect {
            _ = try await NginxServer.start(configuration: broken)
        } throws: { error in
            String(describing: error).contains("no_such_directive")
        }
    }

    @Test func stopEndsNginx() async throws {
        let nginx = try await NginxServer.start(files: ["a.txt": Data("a".utf8)])
        let directory = nginx.directory
        let pidText = try String(contentsOf: directory.appendingPathComponent("nginx.pid"), encoding: .utf8)
        let pid = try #require(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == 0)
        let url = nginx.url("/a.txt")
        nginx.stop()
        nginx.stop() // a second stop is harmless
        await nginx.waitUntilStopped()
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        await #expect(throws: URLError.self) { _ = try await session().data(from: url) }
    }
}
