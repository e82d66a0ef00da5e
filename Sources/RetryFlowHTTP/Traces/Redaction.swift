import Foundation
import RetryFlow

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Keeps secrets out of traces, attempt records and error messages: URL user-info is removed,
/// and the values of query items that look like credentials are masked. Request headers
/// (`Authorization`, `Proxy-Authorization`, `Cookie`) are never written anywhere in the first place.
package enum Redaction {
    /// Query item names whose values are masked (compared case-insensitively, as substrings).
    package static let sensitiveQueryNames = [
        "token", "key", "secret", "password", "passwd", "auth", "signature", "sig", "session",
    ]

    /// `url` without user-info and with credential-like query values replaced by `***`.
    package static func redact(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return "<unparsable URL>"
        }
        components.user = nil
        components.password = nil
        components.queryItems = components.queryItems?.map { item in
            let name = item.name.lowercased()
            guard item.value != nil, sensitiveQueryNames.contains(where: { name.contains($0) }) else { return item }
            return URLQueryItem(name: item.name, value: "***")
        }
        return components.string ?? "<unparsable URL>"
    }

    /// An error in words, safe to store: `URLError -1004 cannotConnectToHost: Could not connect to
    /// the server. (http://127.0.0.1:1/)`, with the URL redacted.
    package static func describe(_ error: any Error) -> String {
        guard let urlError = error as? URLError else { return String(describing: error) }
        var text = "URLError \(urlError.code.rawValue) \(name(of: urlError.code))"
        if let message = urlError.userInfo[NSLocalizedDescriptionKey] as? String, !message.isEmpty, message != "(null)"
        {
            text += ": " + scrub(message, url: urlError.failingURL)
        }
        if let url = urlError.failingURL { text += " (\(redact(url)))" }
        return text
    }

    /// Removes the URL's user-info from a message that might quote it.
    private static func scrub(_ message: String, url: URL?) -> String {
        guard let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return message }
        var text = message
        for secret in [components.password, components.user].compactMap({ $0 }) where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: "***")
        }
        return text
    }

    /// The Swift name of a `URLError.Code`, for messages people can search for.
    package static func name(of code: URLError.Code) -> String {
        switch code {
        case .unknown: "unknown"
        case .cancelled: "cancelled"
        case .badURL: "badURL"
        case .timedOut: "timedOut"
        case .unsupportedURL: "unsupportedURL"
        case .cannotFindHost: "cannotFindHost"
        case .cannotConnectToHost: "cannotConnectToHost"
        case .networkConnectionLost: "networkConnectionLost"
        case .dnsLookupFailed: "dnsLookupFailed"
        case .httpTooManyRedirects: "httpTooManyRedirects"
        case .notConnectedToInternet: "notConnectedToInternet"
        case .badServerResponse: "badServerResponse"
        case .userAuthenticationRequired: "userAuthenticationRequired"
        case .secureConnectionFailed: "secureConnectionFailed"
        case .serverCertificateUntrusted: "serverCertificateUntrusted"
        case .serverCertificateHasBadDate: "serverCertificateHasBadDate"
        case .serverCertificateNotYetValid: "serverCertificateNotYetValid"
        case .serverCertificateHasUnknownRoot: "serverCertificateHasUnknownRoot"
        case .clientCertificateRejected: "clientCertificateRejected"
        default: "code"
        }
    }
}
