import Foundation
import RetryFlow

/// A policy file (`--policy`): decoded and validated or refused naming the field, never a trap;
/// a valid policy's delays stay within zero and its cap, and it round-trips through JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let policy = try? JSONDecoder().decode(RetryPolicy.self, from: Data(bytes: data, count: size)) else {
        return 0
    }
    guard (try? policy.validate()) != nil else { return 0 }
    var random = SeededRandom(seed: UInt64(size))
    var previous: Duration?
    for n in 1...min(max(policy.maxAttempts, 1), 64) {
        let delay = policy.delay(beforeRetry: n, previous: previous, using: &random)
        require(delay >= .zero && delay <= policy.maxDelay, "delay \(delay) before retry \(n), cap \(policy.maxDelay)")
        previous = delay
    }
    guard let encoded = try? JSONEncoder().encode(policy) else {
        require(false, "a valid policy does not encode")
        return 0
    }
    let again = try? JSONDecoder().decode(RetryPolicy.self, from: encoded)
    require(again != nil, "a valid policy does not decode after encoding: \(String(decoding: encoded, as: UTF8.self))")
    return 0
}
