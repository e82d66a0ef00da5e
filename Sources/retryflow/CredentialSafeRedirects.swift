import Foundation
import RetryFlowHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// fetch's session delegate for answers held in memory: follows redirects as URLSession does, but
/// sends the credentials (`-u`, or an `Authorization` or `Cookie` given with -H) only to the origin
/// they were given for (``RedirectCredentials``; a download's own delegate does the same).
final class CredentialSafeRedirects: NSObject, URLSessionTaskDelegate {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(RedirectCredentials.redirect(request, from: task.originalRequest?.url))
    }
}
