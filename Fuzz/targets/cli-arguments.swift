import Foundation

/// `retryflow simulate` and `retryflow render` with fuzzed arguments (NUL-separated): a usage
/// error (exit 2) or a result, never a trap. Options that read or write files are dropped.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fileOptions = ["-o", "--output", "--trace", "--trace-chart", "--policy"]
    var arguments: [String] = []
    var skipNext = false
    for part in fuzzText(data, size).split(separator: "\0", omittingEmptySubsequences: false).map(String.init) {
        if skipNext {
            skipNext = false
            continue
        }
        if fileOptions.contains(part) {
            skipNext = true
            continue
        }
        if fileOptions.contains(where: { part.hasPrefix($0 + "=") }) { continue }
        arguments.append(part)
    }
    guard let command = arguments.first else { return 0 }
    let rest = Array(arguments.dropFirst())
    blocking {
        switch command {
        case "render": _ = try? RenderCommand.run(rest)
        default: _ = try? await SimulateCommand.run(rest)
        }
    }
    return 0
}
