import Foundation
import RetryFlow

/// One option a subcommand accepts.
struct OptionSpec {
    /// Every spelling, e.g. `["-o", "--output"]`; the first long one is its key.
    let names: [String]
    /// Whether it is followed by a value.
    let takesValue: Bool
    /// Whether it may be given more than once (`-H`).
    let repeatable: Bool

    init(_ names: String..., value: Bool = true, repeatable: Bool = false) {
        self.names = names
        self.takesValue = value
        self.repeatable = repeatable
    }

    var key: String { names.first { $0.hasPrefix("--") } ?? names[0] }
}

/// A subcommand's arguments after parsing: options by key, flags, positionals.
struct CommandLineArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var positionals: [String] = []

    /// Parses `arguments` against `specs`: `--name value`, `--name=value`, `-o value`, `--` ends
    /// options. Unknown options, missing values and repeats are usage errors naming the option.
    init(_ arguments: [String], specs: [OptionSpec], command: String) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let spec = specs.first(where: { $0.names.contains(name) }) else {
                throw UsageError("unknown option \(name) for 'retryflow \(command)' (see 'retryflow \(command) --help')")
            }
            if values[spec.key] != nil && !spec.repeatable {
                throw UsageError("option \(name) is given more than once")
            }
            if spec.takesValue {
                if let inline {
                    values[spec.key, default: []].append(inline)
                } else {
                    guard index < arguments.count else { throw UsageError("option \(name) needs a value") }
                    values[spec.key, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                guard inline == nil else { throw UsageError("option \(name) takes no value") }
                values[spec.key, default: []].append("")
            }
        }
    }

    /// Parses a subcommand's arguments; `nil` when `--help` was asked for (and printed). A
    /// subcommand that takes no positional arguments refuses them here.
    static func forCommand(
        _ arguments: [String], specs: [OptionSpec], command: String, help: String, positionals: Bool = false
    ) throws(UsageError) -> CommandLineArguments? {
        let parsed = try CommandLineArguments(arguments, specs: specs, command: command)
        if parsed.has("--help") {
            Console.output(help + "\n")
            return nil
        }
        if !positionals, let extra = parsed.positionals.first {
            throw UsageError("\(command) takes no arguments, got \"\(extra)\"")
        }
        return parsed
    }

    func has(_ key: String) -> Bool { values[key] != nil }
    func value(_ key: String) -> String? { values[key]?.last }
    func all(_ key: String) -> [String] { values[key] ?? [] }

    /// A number of seconds: finite, not negative, not absurd.
    func seconds(_ key: String) throws(UsageError) -> Duration? {
        guard let text = value(key) else { return nil }
        guard let number = Double(text), number.isFinite else {
            throw UsageError("\(key) needs a number of seconds, got \"\(text)\"")
        }
        guard number >= 0 else { throw UsageError("\(key) must not be negative, got \(text)") }
        guard let duration = Duration.checkedSeconds(number, limit: .policyLimit) else {
            throw UsageError("\(key) is too large: \(text) s")
        }
        return duration
    }

    /// A whole number within `range`.
    func integer(_ key: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(key) else { return nil }
        guard let number = Int(text) else { throw UsageError("\(key) needs a whole number, got \"\(text)\"") }
        guard range.contains(number) else {
            throw UsageError("\(key) must be from \(range.lowerBound) to \(range.upperBound), got \(number)")
        }
        return number
    }

    /// One of `choices`.
    func choice(_ key: String, _ choices: [String]) throws(UsageError) -> String? {
        guard let text = value(key) else { return nil }
        guard choices.contains(text) else {
            throw UsageError("\(key) must be one of \(choices.joined(separator: ", ")), got \"\(text)\"")
        }
        return text
    }
}
