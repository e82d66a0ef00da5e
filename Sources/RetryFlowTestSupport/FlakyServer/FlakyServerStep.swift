import Foundation

extension FlakyServer {
    /// One scripted answer to one request: what the server does, after an optional delay.
    ///
    /// ```swift
    /// let script: [FlakyServer.Step] = [.reset, .status(503, headers: ["Retry-After": "1"]), .status(200, body: "ok")]
    /// ```
    public struct Step: Hashable, Sendable, CustomStringConvertible {
        /// What the server does.
        package enum Action: Hashable, Sendable {
            /// Answer with a complete response.
            case respond(status: Int, headers: [Header], body: [UInt8])
            /// Reset the connection (RST: `SO_LINGER` 0, then close) without answering.
            case reset
            /// Close the connection cleanly before sending anything.
            case closeBeforeResponse
            /// Send headers announcing `declaredLength` bytes, then only `sent`, then close.
            case truncatedBody(status: Int, declaredLength: Int, sent: [UInt8])
            /// Never answer; the connection stays open until the client gives up.
            case hang
        }

        /// What the server does.
        package var action: Action
        /// How long the server waits (real time) before doing it.
        package var delay: Duration

        /// A step doing `action` after `delay`.
        package init(_ action: Action, delay: Duration = .zero) {
            self.action = action
            self.delay = delay
        }

        /// A complete response with `status`, extra `headers` and a UTF-8 `body`.
        public static func status(_ status: Int, headers: KeyValuePairs<String, String> = [:], body: String = "")
            -> Step
        {
            Step(
                .respond(
                    status: status, headers: headers.map { Header(name: $0.key, value: $0.value) },
                    body: Array(body.utf8)))
        }

        /// Reset the connection without answering.
        public static let reset = Step(.reset)
        /// Close the connection before answering.
        public static let closeBeforeResponse = Step(.closeBeforeResponse)
        /// Never answer.
        public static let hang = Step(.hang)

        /// Announce `declaredLength` body bytes, send `sent` of them, close.
        public static func truncatedBody(status: Int = 200, declaredLength: Int = 100, sent: Int = 10) -> Step {
            Step(
                .truncatedBody(
                    status: status, declaredLength: declaredLength,
                    sent: Array(repeating: UInt8(ascii: "x"), count: sent)))
        }

        /// The same step, done after `delay`.
        public func delayed(by delay: Duration) -> Step { Step(action, delay: delay) }

        /// `503 (Retry-After: 1)`, `reset`, `hang after 100 ms` …
        public var description: String {
            var text: String
            switch action {
            case .respond(let status, let headers, _):
                text = "\(status)"
                if !headers.isEmpty {
                    text += " (" + headers.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + ")"
                }
            case .reset: text = "reset"
            case .closeBeforeResponse: text = "close before response"
            case .truncatedBody(let status, let declared, let sent):
                text = "\(status) truncated (\(sent.count) of \(declared) bytes)"
            case .hang: text = "hang"
            }
            return delay > .zero ? "\(text) after \(delay.shortDescription)" : text
        }

        /// Throws ``FlakyServerError`` when the step cannot be sent as HTTP/1.1.
        func validate(path: String, index: Int) throws(FlakyServerError) {
            func bad(_ problem: String) -> FlakyServerError {
                FlakyServerError("script for \(path), step \(index + 1): \(problem)")
            }
            guard delay >= .zero else { throw bad("negative delay") }
            switch action {
            case .respond(let status, let headers, _):
                guard (100...599).contains(status) else { throw bad("status \(status) is not 100-599") }
                for header in headers { try header.validate(bad) }
            case .truncatedBody(let status, let declared, let sent):
                guard (200...599).contains(status) else { throw bad("status \(status) is not 200-599") }
                guard sent.count < declared else {
                    throw bad("a truncated body must send fewer bytes than it declares")
                }
            case .reset, .closeBeforeResponse, .hang: break
            }
        }
    }

    /// A response header.
    package struct Header: Hashable, Sendable {
        /// The field name, e.g. `Retry-After`.
        package var name: String
        /// The field value.
        package var value: String

        /// A header.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        func validate(_ bad: (String) -> FlakyServerError) throws(FlakyServerError) {
            let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
            guard !name.isEmpty, name.allSatisfy({ tokenCharacters.contains($0) }) else {
                throw bad("header name \"\(name)\" is not an HTTP token")
            }
            guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw bad("header \(name) has a line break or NUL in its value")
            }
        }
    }
}

/// A script the server cannot play, named: e.g. `script for /a, step 2: status 999 is not 100-599`.
public struct FlakyServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let description: String
    package init(_ description: String) { self.description = description }
}
