import Foundation
import RetryFlow
import RetryFlowHTTP
import RetryFlowTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Credentials never leave their origin: a redirect to another port (another origin) arrives
/// without `Authorization`, `Cookie` and `Proxy-Authorization` on every surface, and a redirect on
/// the same origin keeps them. Two loopback servers on different ports; the first answers 302.
@Suite(.timeLimit(.minutes(1))) struct CrossOriginCredentialTests {
    static let policy = RetryPolicy(maxAttempts: 3, backoff: .constant(.zero), jitter: .none)
    static let credentials = [
        "Authorization": "Bearer s3cr3t", "Cookie": "session=c00kie", "Proxy-Authorization": "Basic cHJveHk=",
    ]

    /// The session a caller passes: `URLSession.shared` (no delegate at all), an ephemeral one, or
    /// one with a delegate of its own that lets every redirect through.
    enum SessionKind: String, CaseIterable, CustomTestStringConvertible {
        case shared, ephemeral, ownDelegate
        var testDescription: String { rawValue }

        func make(_ delegate: RecordingRedirects) -> URLSession {
            switch self {
            case .shared: return .shared
            case .ephemeral: return Runner.session()
            case .ownDelegate:
                return URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            }
        }
    }

    static func request(_ url: URL) -> URLRequest {
        var request = URLRequest(url: url)
        for (name, value) in credentials { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    static func expectAllCredentials(_ request: FlakyServer.RecordedRequest?, _ comment: String) {
        for (name, value) in credentials { #expect(request?.header(name) == value, "\(name): \(comment)") }
    }

    static func expectNoCredentials(_ request: FlakyServer.RecordedRequest?, _ comment: String) {
        #expect(request != nil, "\(comment)")
        for name in credentials.keys { #expect(request?.header(name) == nil, "\(name): \(comment)") }
    }

    @Test(arguments: Surface.allCases, SessionKind.allCases)
    func anotherOriginGetsNoCredentials(_ surface: Surface, _ kind: SessionKind) async throws {
        let elsewhere = try FlakyServer(scripts: ["/land": [.status(200, body: "landed")]])
        defer { elsewhere.stop() }
        let origin = try FlakyServer(scripts: [
            "/moved": [.status(302, headers: ["Location": elsewhere.url("/land").absoluteString])]
        ])
        defer { origin.stop() }
        #expect(origin.port != elsewhere.port)
        let delegate = RecordingRedirects()
        let session = kind.make(delegate)
        defer { if kind == .ownDelegate { session.finishTasksAndInvalidate() } }

        let run = try await Runner.run(
            surface, Self.request(origin.url("/moved")), policy: Self.policy, session: session)

        #expect(run.outcome.succeeded && run.completions == 1)
        #expect(run.outcome.result.value?.response.statusCode == 200)
        #expect(run.outcome.result.value?.data == Data("landed".utf8))
        #expect(run.outcome.result.value?.response.url?.port == elsewhere.port)
        // A redirect is not an attempt, nor a retry.
        #expect(run.outcome.attempts.count == 1)
        #expect(origin.requests(to: "/moved").count == 1 && elsewhere.requests(to: "/land").count == 1)
        Self.expectAllCredentials(origin.requests(to: "/moved").first, "the origin gets them")
        Self.expectNoCredentials(elsewhere.requests(to: "/land").first, "another port is another origin")
        if kind == .ownDelegate {
            // The session's own delegate is still asked, and sees the redirect already stripped.
            #expect(delegate.asked.count == 1)
            #expect(delegate.asked.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == nil })
        }
    }

    @Test(arguments: Surface.allCases, SessionKind.allCases)
    func theSameOriginKeepsThem(_ surface: Surface, _ kind: SessionKind) async throws {
        let origin = try FlakyServer(scripts: [
            "/moved": [.status(302, headers: ["Location": "/land"])], "/land": [.status(200, body: "landed")],
        ])
        defer { origin.stop() }
        let delegate = RecordingRedirects()
        let session = kind.make(delegate)
        defer { if kind == .ownDelegate { session.finishTasksAndInvalidate() } }

        let run = try await Runner.run(
            surface, Self.request(origin.url("/moved")), policy: Self.policy, session: session)

        #expect(run.outcome.succeeded && run.outcome.attempts.count == 1)
        #expect(run.outcome.result.value?.data == Data("landed".utf8))
        Self.expectAllCredentials(origin.requests(to: "/moved").first, "the first request")
        Self.expectAllCredentials(origin.requests(to: "/land").first, "a same-origin redirect keeps them")
    }

    /// Once dropped they stay dropped: a hop back to the first origin does not get them again.
    @Test(arguments: Surface.allCases)
    func aHopBackToTheOriginDoesNotGetThemBack(_ surface: Surface) async throws {
        let origin = try FlakyServer()
        defer { origin.stop() }
        let elsewhere = try FlakyServer(scripts: [
            "/bounce": [.status(302, headers: ["Location": origin.url("/back").absoluteString])]
        ])
        defer { elsewhere.stop() }
        try origin.setScript([.status(302, headers: ["Location": elsewhere.url("/bounce").absoluteString])], for: "/go")
        try origin.setScript([.status(200, body: "back")], for: "/back")

        let run = try await Runner.run(surface, Self.request(origin.url("/go")), policy: Self.policy)

        #expect(run.outcome.result.value?.data == Data("back".utf8))
        #expect(run.outcome.attempts.count == 1)
        Self.expectAllCredentials(origin.requests(to: "/go").first, "the first request")
        Self.expectNoCredentials(elsewhere.requests(to: "/bounce").first, "another origin")
        Self.expectNoCredentials(origin.requests(to: "/back").first, "back on the origin after another one")
    }

    /// A session delegate that refuses redirects keeps the last word: the 302 is the answer and the
    /// other origin is never asked.
    @Test(arguments: Surface.allCases)
    func aSessionDelegateThatRefusesRedirectsStillDecides(_ surface: Surface) async throws {
        let elsewhere = try FlakyServer(scripts: ["/land": [.status(200, body: "landed")]])
        defer { elsewhere.stop() }
        let origin = try FlakyServer(scripts: [
            "/moved": [.status(302, headers: ["Location": elsewhere.url("/land").absoluteString], body: "moved")]
        ])
        defer { origin.stop() }
        let delegate = RecordingRedirects(follows: false)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        let run = try await Runner.run(
            surface, Self.request(origin.url("/moved")), policy: Self.policy, session: session)

        #expect(delegate.asked.count == 1)
        #expect(run.outcome.result.value?.response.statusCode == 302)
        #expect(run.outcome.attempts.count == 1)
        #expect(elsewhere.requests.isEmpty)
    }

    /// The blocking call without retry drops them too.
    @Test func theSynchronousCallWithoutRetryDropsThem() async throws {
        let elsewhere = try FlakyServer(scripts: ["/sync": [.status(200, body: "landed")]])
        defer { elsewhere.stop() }
        let origin = try FlakyServer(scripts: [
            "/sync": [.status(302, headers: ["Location": elsewhere.url("/sync").absoluteString])]
        ])
        defer { origin.stop() }
        let session = Runner.session()
        let request = Self.request(origin.url("/sync"))
        let status: Int? = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let (_, response, _) = session.synchronousDataTask(with: request)
                continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode)
            }
        }
        #expect(status == 200)
        Self.expectAllCredentials(origin.requests(to: "/sync").first, "the origin gets them")
        Self.expectNoCredentials(elsewhere.requests(to: "/sync").first, "synchronousDataTask(with:)")
    }

    /// What the session's cookie jar holds for the new URL still goes there, once: cookies are
    /// scoped by domain and path, not port, so the jar's cookie for 127.0.0.1 is the new URL's
    /// own (URLSession adds it to a redirect it follows without a delegate; the guard keeps that).
    /// Through `downloadAndRetry(with:)`, the shape that takes a URL and no headers.
    @Test func theJarsOwnCookiesStillFollowARedirect() async throws {
        let elsewhere = try FlakyServer(scripts: ["/objc": [.status(200, body: "landed")]])
        defer { elsewhere.stop() }
        let origin = try FlakyServer(scripts: [
            "/objc": [.status(302, headers: ["Location": elsewhere.url("/objc").absoluteString])]
        ])
        defer { origin.stop() }
        let jarSession = Runner.session()
        let cookie = HTTPCookie(properties: [
            .name: "session", .value: "c00kie", .domain: "127.0.0.1", .path: "/objc", .originURL: origin.url("/objc"),
        ])!
        jarSession.configuration.httpCookieStorage?.setCookie(cookie)
        let landed: Int? = await withCheckedContinuation { continuation in
            jarSession.downloadAndRetry(with: origin.url("/objc"), retryCount: 2) { response, _ in
                continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode)
            } failure: {
                continuation.resume(returning: nil)
            }
        }
        #expect(landed == 200)
        #expect(origin.requests(to: "/objc").first?.header("Cookie") == "session=c00kie")
        #expect(elsewhere.requests(to: "/objc").first?.header("Cookie") == "session=c00kie")
    }

    /// Downloads run on a session of their own whose delegate strips them (DownloadTests covers
    /// `Authorization`); here all three, and the same origin keeping them.
    @Test func downloadsDropThemAndKeepThemOnTheSameOrigin() async throws {
        let resource = FlakyServer.Resource(size: 10_000)
        let elsewhere = try FlakyServer()
        defer { elsewhere.stop() }
        try elsewhere.serveDownload(resource, at: "/file", steps: [.serve])
        let origin = try FlakyServer(scripts: [
            "/moved": [.status(302, headers: ["Location": elsewhere.url("/file").absoluteString])],
            "/here": [.status(302, headers: ["Location": "/file"])],
        ])
        defer { origin.stop() }
        try origin.serveDownload(resource, at: "/file", steps: [.serve])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xorigin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let away = try await Runner.session().downloadOutcome(
            for: Self.request(origin.url("/moved")), to: folder.appendingPathComponent("a"),
            retry: .policy(Self.policy), clock: ContinuousClock())
        #expect(away.succeeded)
        Self.expectNoCredentials(elsewhere.requests(to: "/file").first, "a download's redirect to another port")

        let here = try await Runner.session().downloadOutcome(
            for: Self.request(origin.url("/here")), to: folder.appendingPathComponent("b"), retry: .policy(Self.policy),
            clock: ContinuousClock())
        #expect(here.succeeded)
        Self.expectAllCredentials(origin.requests(to: "/file").first, "a download's same-origin redirect")
    }
}

/// A session delegate that records the redirects it is asked about, and follows them or not.
final class RecordingRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    let follows: Bool
    private let requests = Locked<[URLRequest]>([])
    var asked: [URLRequest] { requests.withLock { $0 } }

    init(follows: Bool = true) { self.follows = follows }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        requests.withLock { $0.append(request) }
        completionHandler(follows ? request : nil)
    }
}

extension Result {
    /// The success value, if any.
    fileprivate var value: Success? { try? get() }
}
