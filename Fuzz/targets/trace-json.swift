import Foundation
import RetryFlow
import RetryFlowCharts

/// A trace file as `retryflow render --trace` reads it: decoded or refused, never a trap; a
/// decoded trace is checked against the table, drawn, told as a timeline, and re-encodes to
/// the same trace.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let trace = try? TraceJSON<RetryVocabulary>.decode(Data(bytes: data, count: size)) else { return 0 }
    let problems = trace.inconsistencies(with: RetryTable.retry)
    _ = Timeline.render(trace)
    if problems.isEmpty {
        _ = DOTChart.render(RetryTable.retry, style: .flowchart, overlay: TraceOverlay(trace: trace, table: .retry))
    }
    guard let encoded = try? TraceJSON.encode(trace) else {
        require(false, "a decoded trace does not encode")
        return 0
    }
    let again = try? TraceJSON<RetryVocabulary>.decode(encoded)
    require(again == trace, "trace does not round-trip: \(String(decoding: encoded, as: UTF8.self))")
    return 0
}
