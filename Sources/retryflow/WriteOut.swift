import Foundation
import RetryFlow

/// curl's `-w/--write-out` format, parsed once before the transfer (an unknown variable is a
/// usage error naming the flag) and filled in after it.
struct WriteOut {
    /// What a run leaves for the variables.
    struct Values {
        var httpCode: Int?
        var retries: Int
        var timeTotal: Duration
        var sizeDownload: Int
        var urlEffective: String
        var exitCode: Int32
        var finalState: String
        var stopReason: String
    }

    private enum Piece {
        case text(String)
        case variable(String)
    }

    /// The variables understood: curl's common ones and RetryFlow's own.
    static let variables = [
        "http_code", "response_code", "num_retries", "time_total", "size_download", "url_effective", "exitcode",
        "final_state", "stop_reason",
    ]

    private let pieces: [Piece]

    init(_ format: String, option: String = "-w") throws(UsageError) {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(format)
        while let character = rest.first {
            if rest.hasPrefix("%{") {
                guard let close = rest.firstIndex(of: "}") else {
                    throw UsageError("\(option): \"%{\" without a closing \"}\" in \"\(format)\"")
                }
                let name = String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])
                guard Self.variables.contains(name) else {
                    let known = Self.variables.map { "%{\($0)}" }.joined(separator: " ")
                    throw UsageError("\(option): unknown variable %{\(name)} (known: \(known))")
                }
                pieces.append(.text(text))
                text = ""
                pieces.append(.variable(name))
                rest = rest[rest.index(after: close)...]
            } else if rest.hasPrefix("%%") {
                text += "%"
                rest = rest.dropFirst(2)
            } else if character == "\\", let next = rest.dropFirst().first {
                switch next {
                case "n": text += "\n"
                case "t": text += "\t"
                case "r": text += "\r"
                case "\\": text += "\\"
                default: text += "\\\(next)"
                }
                rest = rest.dropFirst(2)
            } else {
                text.append(character)
                rest = rest.dropFirst()
            }
        }
        pieces.append(.text(text))
        self.pieces = pieces
    }

    /// The format with `values` filled in, as curl prints them (`time_total` in seconds with 6 decimals).
    func render(_ values: Values) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): return text
            case .variable(let name): return Self.value(of: name, in: values)
            }
        }.joined()
    }

    private static func value(of name: String, in values: Values) -> String {
        switch name {
        case "http_code", "response_code": return String(format: "%03d", values.httpCode ?? 0)
        case "num_retries": return String(values.retries)
        case "time_total": return String(format: "%.6f", values.timeTotal.inSeconds)
        case "size_download": return String(values.sizeDownload)
        case "url_effective": return values.urlEffective
        case "exitcode": return String(values.exitCode)
        case "final_state": return values.finalState
        default: return values.stopReason
        }
    }
}
