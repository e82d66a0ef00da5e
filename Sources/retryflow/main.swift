import Foundation
import RetryFlow

// The subcommands (render, fetch, simulate, demo) arrive with issue 5. Until then the tool says so
// instead of pretending: it prints the shipped transition table, the one thing it can show today.
let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "table" {
    for row in RetryTable.retry.rows { print(row) }
    exit(0)
}
FileHandle.standardError.write(Data("usage: retryflow table\n  (render, fetch, simulate and demo are not built yet)\n".utf8))
exit(arguments.isEmpty || arguments.first == "--help" ? 0 : 2)
