import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// fetch's session delegate: follows redirects as URLSession does, but, as curl does, sends the
/// credentials (`-u`, or an `Authorization` or `Cookie` given with -H) only to the origin they
/// were given for. URLSession on Linux copies every header onto the redirected request, so
/// without this a server could redirect to another host or port and receive the password.
final class CredentialSafeRedirects: NSObject, URLSessionTaskDelegate {
    /// The headers that carry credentials, dropped when a redirect leaves the original origin.
    static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(Self.redirect(request, from: task.originalRequest?.url))
    }

    /// `request` as it may be sent after a redirect from `original`: unchanged on the same
    /// origin (scheme, host, port), without the credential headers anywhere else.
    static func redirect(_ request: URLRequest, from original: URL?) -> URLRequest {
        guard let original, let target = request.url, origin(of: target) != origin(of: original) else { return request }
        var stripped = request
        for name in credentialHeaders { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    /// Scheme, host and port (the scheme's default when the URL gives none), compared as curl does.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
