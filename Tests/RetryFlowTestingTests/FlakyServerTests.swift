import Foundation
import RetryFlow
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct FlakyServerTests {
    private func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 5
        return URLSession(configuration: configuration)
    }

    private func fetch(
        _ url: URL, method: String = "GET", body: String? = nil, timeout: TimeInterval = 5,
        session: URLSession? = nil
    ) async -> Result<(Data, HTTPURLResponse), URLError> {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        do {
            let (data, response) = try await (session ?? self.session()).data(for: request)
            return .success((data, response as! HTTPURLResponse))
        } catch let error as URLError {
            return .failure(error)
        } catch {
            Issue.record("unexpected \(error)")
            return .failure(URLError(.unknown))
        }
    }

    @Test func playsScriptsInOrderAndRepeatsTheLastStep() async throws {
        let server = try FlakyServer(scripts: [
            "/a": [.status(503, headers: ["Retry-After": "1"]), .status(200, body: "ok")]
        ])
        defer { server.stop() }
        let first = try await fetch(server.url("/a")).get()
        #expect(first.1.statusCode == 503)
        #expect(first.1.value(forHTTPHeaderField: "Retry-After") == "1")
        for _ in 0..<2 {
            let next = try await fetch(server.url("/a")).get()
            #expect(next.1.statusCode == 200)
            #expect(String(decoding: next.0, as: UTF8.self) == "ok")
        }
        let seen = server.requests(to: "/a")
        #expect(seen.map(\.step) == [0, 1, 1])
        #expect(seen.allSatisfy { $0.method == "GET" && $0.answered != nil })
        #expect(seen.map(\.arrival) == seen.map(\.arrival).sorted())
    }

    @Test func recordsMethodHeadersQueryAndBody() async throws {
        let server = try FlakyServer(scripts: ["/post": [.status(201)]])
        defer { server.stop() }
        var request = URLRequest(url: URL(string: server.url("/post").absoluteString + "?x=1")!)
        request.httpMethod = "POST"
        request.setValue("abc-123", forHTTPHeaderField: "Idempotency-Key")
        request.httpBody = Data("payload".utf8)
        let (_, response) = try await session().data(for: request)
        #expect((response as! HTTPURLResponse).statusCode == 201)
        let seen = try #require(server.requests.first)
        #expect(seen.method == "POST")
        #expect(seen.path == "/post")
        #expect(seen.query == "x=1")
        #expect(seen.header("idempotency-key") == "abc-123")
        #expect(String(decoding: seen.body, as: UTF8.self) == "payload")
    }

    @Test func unscriptedPathsAnswer404() async throws {
        let server = try FlakyServer()
        defer { server.stop() }
        let (data, response) = try await fetch(server.url("/nowhere")).get()
        #expect(response.statusCode == 404)
        #expect(String(decoding: data, as: UTF8.self).contains("no script for /nowhere"))
        #expect(server.requests.first?.step == nil)
    }

    /// The faults, as swift-corelibs-foundation reports them on Linux (see shared facts).
    @Test func faultsReachTheClientAsTheRealOnesDo() async throws {
        let server = try FlakyServer(scripts: [
            "/reset": [.reset], "/close": [.closeBeforeResponse], "/truncated": [.truncatedBody()], "/hang": [.hang],
        ])
        defer { server.stop() }
        let reset = await fetch(server.url("/reset"))
        #expect(Self.code(reset) == .networkConnectionLost)
        let closed = await fetch(server.url("/close"))
        #expect(Self.code(closed) == .badServerResponse)
        let truncated = await fetch(server.url("/truncated"))
        #expect(Self.code(truncated) == .unknown || Self.code(truncated) == .networkConnectionLost)
        // On Linux a request's own timeoutInterval is ignored by data(for:) (measured: 60 s with the
        // default configuration), so the session's configuration sets it here.
        let quick = URLSessionConfiguration.ephemeral
        quick.timeoutIntervalForRequest = 0.3
        let hung = await fetch(server.url("/hang"), session: URLSession(configuration: quick))
        #expect(Self.code(hung) == .timedOut)
        #expect(server.requests(to: "/hang").first?.answered == nil)
    }

    static func code(_ result: Result<(Data, HTTPURLResponse), URLError>) -> URLError.Code? {
        if case .failure(let error) = result { return error.code }
        return nil
    }

    @Test func delayedStepsWaitBeforeAnswering() async throws {
        let server = try FlakyServer(scripts: ["/slow": [.status(200).delayed(by: .milliseconds(150))]])
        defer { server.stop() }
        _ = try await fetch(server.url("/slow")).get()
        let seen = try #require(server.requests.first)
        let waited = try #require(seen.answered) - seen.arrival
        #expect(waited >= .milliseconds(150))
    }

    @Test func keepsConnectionsAlive() async throws {
        let server = try FlakyServer(scripts: ["/k": [.status(200, body: "k")]])
        defer { server.stop() }
        let shared = session()
        for _ in 0..<3 { _ = try await fetch(server.url("/k"), session: shared).get() }
        #expect(Set(server.requests.map(\.connection)).count == 1, "one connection reused")
    }

    @Test func rejectsBadScriptsNamingTheProblem() {
        let cases: [([String: [FlakyServer.Step]], String)] = [
            (["nope": [.status(200)]], "must start with /"),
            (["/a": []], "script for /a is empty"),
            (["/a": [.status(200), .status(999)]], "step 2: status 999 is not 100-599"),
            (["/a": [.status(200, headers: ["Bad Name": "x"])]], "is not an HTTP token"),
            (["/a": [.status(200, headers: ["X-Evil": "a\r\nSet-Cookie: b"])]], "line break"),
            (["/a": [.truncatedBody(declaredLength: 5, sent: 9)]], "fewer bytes"),
        ]
        for (scripts, message) in cases {
            #expect {
                try FlakyServer(scripts: scripts)
            } throws: { error in
                (error as? FlakyServerError)?.description.contains(message) == true
            }
        }
    }

    @Test func stopClosesTheListeningSocket() async throws {
        let server = try FlakyServer(scripts: ["/a": [.status(200)]])
        let url = server.url("/a")
        _ = try await fetch(url).get()
        server.stop()
        server.stop()
        #expect(Self.code(await fetch(url)) == .cannotConnectToHost)
    }

    @Test func aRefusingPortRefusesAndKeepsItsPortFromOtherServers() async throws {
        let refusing = try RefusingPort()
        #expect(Self.code(await fetch(refusing.url("/x"))) == .cannotConnectToHost)
        #expect(Self.canListen(on: refusing.port) == false, "a server asking for SO_REUSEADDR cannot take the port")
        refusing.stop()
        refusing.stop()
        // Given back: its socket is closed. Whether the port can be bound again is not asked: in this
        // parallel run the kernel may already have handed it to another test, as a server's port or
        // as a client's local one (seen under load).
        #expect(!refusing.holdsPort, "stop gives the port back")
    }

    /// A thousand clients connected at once, each answered. The blocking sockets run on a thread
    /// of their own: on one of Swift's two threads they held every other test's timers.
    @Test func servesAThousandConcurrentConnections() async throws {
        let server = try FlakyServer(scripts: ["/c": [.status(200, body: "c")]])
        defer { server.stop() }
        let port = server.port
        let (open, replies) = try await runOnOwnThread {
            let clients = try (0..<1000).map { _ in try RawClient(port: port) }
            for client in clients { try client.send("GET /c HTTP/1.1\r\nHost: x\r\n\r\n") }
            let open = server.openConnections
            return (open, try clients.map { try $0.receive() })
        }
        #expect(open == 1000)
        for reply in replies {
            #expect(reply.hasPrefix("HTTP/1.1 200 OK"))
            #expect(reply.hasSuffix("\r\n\r\nc"))
        }
        #expect(server.requests.count == 1000)
        #expect(Set(server.requests.map(\.connection)).count == 1000)
    }
}

extension FlakyServerTests {
    /// libcurl sends `Expect: 100-continue` and waits up to a second for it before a POST body.
    @Test func answersExpectContinueAtOnce() async throws {
        let server = try FlakyServer(scripts: ["/p": [.status(201)]])
        defer { server.stop() }
        let port = server.port
        let (interim, final) = try await runOnOwnThread {
            let client = try RawClient(port: port)
            try client.send("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
            let interim = try client.receiveHead()
            try client.send("{}")
            return (interim, try client.receive())
        }
        #expect(interim.hasPrefix("HTTP/1.1 100 Continue"))
        #expect(final.hasPrefix("HTTP/1.1 201"))
        #expect(server.requests.first?.body == Data("{}".utf8))
    }

    /// A range ending at `Int.max` is cut to the file (it trapped on `end + 1`, killing the tests).
    @Test func aRangeEndingAtTheLargestIntegerIsCutToTheFile() async throws {
        let server = try FlakyServer()
        defer { server.stop() }
        try server.serveDownload(FlakyServer.Resource(size: 10), at: "/f")
        let port = server.port
        let answer = try await runOnOwnThread {
            let client = try RawClient(port: port)
            try client.send("GET /f HTTP/1.1\r\nHost: x\r\nRange: bytes=4-\(Int.max)\r\n\r\n")
            return try client.receive()
        }
        #expect(answer.hasPrefix("HTTP/1.1 206"))
        #expect(answer.contains("Content-Range: bytes 4-9/10"))
    }

    /// How download tests compare the bytes on disk with the source: the first differing offset.
    @Test func firstDifferenceFindsTheFirstWrongByte() async throws {
        let resource = FlakyServer.Resource(size: 3 << 20, seed: 7)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("retryflow-diff-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        var bytes = resource.bytes(0..<resource.size)
        try Data(bytes).write(to: file)
        #expect(try await resource.firstDifference(fromFileAt: file) == nil)
        bytes[(2 << 20) + 5] ^= 1
        try Data(bytes).write(to: file)
        #expect(try await resource.firstDifference(fromFileAt: file) == (2 << 20) + 5)
        try Data(resource.bytes(0..<1000)).write(to: file)
        #expect(try await resource.firstDifference(fromFileAt: file) == 1000, "a short file differs at its end")
        try Data(resource.bytes(0..<resource.size) + [0]).write(to: file)
        #expect(try await resource.firstDifference(fromFileAt: file) == resource.size, "so does a long one")
        #expect(try await FlakyServer.Resource(size: 3 << 20, seed: 8).firstDifference(fromFileAt: file) != nil)
    }
}
