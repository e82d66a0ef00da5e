import Foundation
import RetryFlow

/// One option a subcommand accepts: a row of the command's option table.
struct OptionSpec {
    /// Every spelling, e.g. `["-o", "--output"]`; the first long one is its key.
    let names: [String]
    /// Whether it is followed by a value.
    let takesValue: Bool
    /// Whether it may be given more than once (`-H`).
    let repeatable: Bool
    /// Set for a flag the tool knows but will not take (curl's `-k`): the reason, printed with exit 2.
    let refusal: String?

    init(_ names: String..., value: Bool = true, repeatable: Bool = false, refused refusal: String? = nil) {
        self.init(names: names, value: value, repeatable: repeatable, refused: refusal)
    }

    /// A row from a list of spellings (for tables built from data).
    init(names: [String], value: Bool, repeatable: Bool = false, refused refusal: String?) {
        self.names = names
        self.takesValue = value
        self.repeatable = repeatable
        self.refusal = refusal
    }

    var key: String { names.first { $0.hasPrefix("--") } ?? names[0] }
}

/// A subcommand's arguments after parsing: options by key, flags, positionals.
struct CommandLineArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var positionals: [String] = []

    /// Parses `arguments` against `specs`: `--name value`, `--name=value`, `-o value`, `--` ends
    /// options. Unknown options, missing values and repeats are usage errors naming the option.
    init(_ arguments: [String], specs: [OptionSpec], command: String, unknownNote: String? = nil) throws(UsageError) {
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
            if !argument.hasPrefix("--") && argument.count > 2 {
                index = try parseCluster(
                    argument, arguments: arguments, next: index, specs: specs, command: command,
                    unknownNote: unknownNote)
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            let spec = try Self.spec(named: name, in: specs, command: command, unknownNote: unknownNote)
            if spec.takesValue {
                if let inline {
                    try record(spec, name: name, value: inline)
                } else {
                    guard index < arguments.count else { throw UsageError("option \(name) needs a value") }
                    try record(spec, name: name, value: arguments[index])
                    index += 1
                }
            } else {
                guard inline == nil else { throw UsageError("option \(name) takes no value") }
                try record(spec, name: name, value: "")
            }
        }
    }

    /// Short flags written together, as curl and getopt take them: `-fsSL` is `-f -s -S -L`; a
    /// flag that takes a value ends the cluster, its value being the rest (`-ofile`) or the next argument.
    private mutating func parseCluster(
        _ argument: String, arguments: [String], next: Int, specs: [OptionSpec], command: String, unknownNote: String?
    ) throws(UsageError) -> Int {
        var rest = Substring(argument.dropFirst())
        var index = next
        while let letter = rest.first {
            rest = rest.dropFirst()
            let name = "-\(letter)"
            let spec = try Self.spec(named: name, in: specs, command: command, unknownNote: unknownNote)
            guard spec.takesValue else {
                try record(spec, name: name, value: "")
                continue
            }
            if !rest.isEmpty {
                try record(spec, name: name, value: String(rest))
            } else {
                guard index < arguments.count else { throw UsageError("option \(name) needs a value") }
                try record(spec, name: name, value: arguments[index])
                index += 1
            }
            break
        }
        return index
    }

    /// The row for `name`; unknown names and refused flags are usage errors that say so.
    private static func spec(
        named name: String, in specs: [OptionSpec], command: String, unknownNote: String?
    ) throws(UsageError) -> OptionSpec {
        guard let spec = specs.first(where: { $0.names.contains(name) }) else {
            let note = unknownNote.map { "; \($0)" } ?? ""
            throw UsageError(
                "unknown option \(name) for 'retryflow \(command)' (see 'retryflow \(command) --help'\(note))")
        }
        if let refusal = spec.refusal { throw UsageError("\(name): \(refusal)") }
        return spec
    }

    /// Keeps one occurrence. A flag without a value may repeat harmlessly (`-s -s`, `-fsS -s`); a
    /// value given twice is refused unless the option collects values (`-H`).
    private mutating func record(_ spec: OptionSpec, name: String, value: String) throws(UsageError) {
        if values[spec.key] != nil && !spec.repeatable {
            guard !spec.takesValue else { throw UsageError("option \(name) is given more than once") }
            return
        }
        values[spec.key, default: []].append(value)
    }

    /// Parses a subcommand's arguments; `nil` when `--help` was asked for (and printed). A
    /// subcommand that takes no positional arguments refuses them here.
    static func forCommand(
        _ arguments: [String], specs: [OptionSpec], command: String, help: String, positionals: Bool = false,
        unknownNote: String? = nil
    ) throws(UsageError) -> CommandLineArguments? {
        let parsed = try CommandLineArguments(arguments, specs: specs, command: command, unknownNote: unknownNote)
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
