import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The task delegate on every data task RetryFlow makes on a caller's session: a redirect to
/// another origin drops the credentials (`RedirectCredentials`) even when the session's delegate
/// is not ours, or when there is none (`URLSession.shared`).
///
/// Why a task delegate, measured on swift-corelibs-foundation (Swift 6.3.1; docs/http.md): without
/// a delegate, URLSession follows a redirect with every header of the original request, so a
/// server on another port received `Authorization` and `Cookie`. A delegate set on
/// `URLSessionTask.delegate` of a completion-handler data task, before `resume()`, is asked about
/// every redirect (`redirectFor(request:)` asks `task.delegate`, which falls back to the session's
/// delegate). The `delegate:` argument of `data(for:delegate:)` is not asked, and the header went
/// through. Following redirects on the machine instead is not possible on a session we do not own:
/// without its delegate, URLSession cannot be told not to follow them.
///
/// Everything else stays the session's: this delegate implements only the redirect callback and
/// hands the (stripped) redirect on to the session's own delegate, if it has one, whose answer is
/// final (it may refuse the redirect, or add a credential meant for the new origin). The other
/// callbacks (authentication challenges, metrics, body streams) reach the session's delegate as
/// before: swift-corelibs-foundation's default implementations forward them when the task's
/// delegate does not implement them, as Apple's Foundation does.
///
/// A data delegate too, though it implements none of those callbacks: swift-corelibs-foundation asks
/// `task.delegate as? URLSessionDataDelegate` whether to cache a response (read from its source;
/// a probe on 6.3.1 saw `willCacheResponse` never called, with or without a task delegate), and a
/// delegate that is only a task delegate would keep the session's delegate from being asked.
final class RedirectGuard: NSObject, URLSessionDataDelegate, Sendable {
    /// Stateless: one serves every task.
    static let shared = RedirectGuard()

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let original = task.originalRequest?.url
        var safe = RedirectCredentials.redirect(request, from: original)
        guard let own = session.delegate as? URLSessionTaskDelegate, own !== self else {
            #if canImport(FoundationNetworking)
                // Without any delegate, swift-corelibs-foundation adds the cookie jar's cookies for
                // the new URL to a redirect (they are that URL's own); with one it does not: keep
                // doing so where the origin's were dropped. Apple's adds them when it sends.
                if RedirectCredentials.leavesOrigin(request, from: original) {
                    safe = RedirectCredentials.withStoredCookies(safe, in: session.configuration)
                }
            #endif
            return completionHandler(safe)
        }
        #if canImport(FoundationNetworking)
            own.urlSession(
                session, task: task, willPerformHTTPRedirection: response, newRequest: safe,
                completionHandler: completionHandler)
        #else
            let asked: Void? = own.urlSession?(
                session, task: task, willPerformHTTPRedirection: response, newRequest: safe,
                completionHandler: completionHandler)
            if asked == nil { completionHandler(safe) }
        #endif
    }
}

extension URLSessionTask {
    /// Puts `RedirectGuard` on this task when its request carries a credential header; call it
    /// before `resume()` (after it, swift-corelibs-foundation traps).
    ///
    /// Only then: a task delegate changes how corelibs delivers a completion-handler task, and in
    /// the whole parallel `swift test` the fault matrix's completion-handler and synchronous runs
    /// then missed their 3 s attempt timeouts and saw other errors (they pass alone, and pass with
    /// no task delegate). A request without `Authorization`, `Cookie` or `Proxy-Authorization` has
    /// nothing to strip: the cookie jar's own cookies are scoped to their origin by URLSession.
    func guardCredentialsOnRedirect() {
        guard let headers = originalRequest?.allHTTPHeaderFields, !headers.isEmpty else { return }
        let carries = headers.keys.contains { name in
            RedirectCredentials.headers.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
        }
        if carries { delegate = RedirectGuard.shared }
    }
}
