import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the tool talks: data to stdout, progress and diagnostics to stderr; colour only on a
/// terminal and never when `NO_COLOR` is set.
enum Console {
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    static let useColor: Bool = {
        let environment = ProcessInfo.processInfo.environment
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        if environment["TERM"] == "dumb" { return false }
        return isatty(STDERR_FILENO) == 1
    }()

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func output(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func output(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    enum Tone: String {
        case good = "32"
        case bad = "31"
        case quiet = "2"
        case strong = "1"
    }

    /// `text` coloured for stderr when colour is allowed.
    static func paint(_ text: String, _ tone: Tone) -> String {
        useColor ? "\u{1B}[\(tone.rawValue)m\(text)\u{1B}[0m" : text
    }
}
