/// `retryflow help --man`: the man page (roff), generated from the usage and each command's
/// `--help` text, so the page says exactly what the tool says.
enum ManPage {
    static func render(usage: String) -> String {
        var page = """
            .TH RETRYFLOW 1 "" "retryflow" "User Commands"
            .SH NAME
            retryflow \\- retries you can see: fetch with retries, simulate policies, draw the retry machine
            .SH SYNOPSIS
            .B retryflow
            .I command
            [\\fIoptions\\fR]
            .SH DESCRIPTION

            """
        page += paragraphs(usage.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().map(String.init))
        for command in CommandCatalog.commands {
            page += ".SH \(escape(command.name.uppercased()))\n"
            page += paragraphs(command.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        }
        return page
    }

    /// Help lines as roff: `  -x, --long VALUE   text` become tagged paragraphs (continuation
    /// lines joining them), other lines stay text, blank lines break paragraphs.
    private static func paragraphs(_ lines: [String]) -> String {
        var out = ""
        var inOption = false
        for line in lines {
            let trimmed = line.trimmingLeadingSpaces
            let indent = line.count - trimmed.count
            let startsOption = indent >= 2 && trimmed.hasPrefix("-")
            defer { inOption = startsOption || (inOption && indent >= 8) }
            if trimmed.isEmpty {
                out += ".PP\n"
            } else if startsOption, let split = trimmed.range(of: "  ") {
                let tag = String(trimmed[..<split.lowerBound])
                let text = String(trimmed[split.upperBound...]).trimmingLeadingSpaces
                out += ".TP\n\\fB\(escape(tag))\\fR\n\(escape(text))\n"
            } else if startsOption {
                out += ".TP\n\\fB\(escape(trimmed))\\fR\n"
            } else if indent >= 8 && inOption {
                out += escape(trimmed) + "\n" // continues the option above
            } else if indent >= 2 {
                out += ".br\n" + escape(trimmed) + "\n"
            } else {
                out += (inOption ? ".PP\n" : "") + escape(trimmed) + "\n"
            }
        }
        return out
    }

    /// Backslashes, hyphens and non-ASCII characters as roff wants them; a leading `.` or `'` is
    /// not a request.
    private static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            case _ where scalar.isASCII: escaped.unicodeScalars.append(scalar)
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            }
        }
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
}

extension String {
    fileprivate var trimmingLeadingSpaces: String { String(drop { $0 == " " }) }
}
