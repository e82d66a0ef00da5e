/// SHA-256 (FIPS 180-4), fed incrementally, so a download is hashed as it streams without holding
/// it. Written here because the toolchain ships no hash on Linux (CryptoKit is Apple-only) and the
/// package takes no outside dependency.
package struct SHA256: Sendable {
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    package init() { pending.reserveCapacity(64) }

    /// Adds `buffer` to the message (whole blocks are hashed in place).
    package mutating func update(buffer: UnsafeRawBufferPointer) {
        var index = 0
        length &+= UInt64(buffer.count)
        while index < buffer.count && !pending.isEmpty {
            pending.append(buffer[index])
            index += 1
            if pending.count == 64 {
                compress(pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
        while buffer.count - index >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: buffer[index..<(index + 64)]))
            index += 64
        }
        pending.append(contentsOf: buffer[index...])
    }

    /// The digest as 64 lowercase hex digits; the hasher is consumed.
    package consuming func hexDigest() -> String {
        let bitLength = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        for start in stride(from: 0, to: tail.count, by: 64) { compress(Array(tail[start..<(start + 64)])) }
        return state.map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    /// The hex digest of `bytes`.
    package static func hex(of bytes: some Sequence<UInt8>) -> String {
        var hasher = SHA256()
        for chunk in ChunkedBytes(bytes) { chunk.withUnsafeBytes { hasher.update(buffer: $0) } }
        return hasher.hexDigest()
    }

    private mutating func compress(_ block: [UInt8]) {
        block.withUnsafeBytes { compress($0) }
    }

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { compress(block, schedule: $0) }
    }

    private mutating func compress(_ block: UnsafeRawBufferPointer, schedule w: UnsafeMutableBufferPointer<UInt32>) {
        // Raw pointers throughout: in a debug build (the tests') checked array access made hashing
        // a file ~10 × slower.
        let k = Self.k
        k.withUnsafeBufferPointer { k in
            state.withUnsafeMutableBufferPointer { state in
                for t in 0..<16 {
                    w[t] =
                        UInt32(block[t &* 4]) << 24 | UInt32(block[t &* 4 &+ 1]) << 16
                        | UInt32(block[t &* 4 &+ 2]) << 8 | UInt32(block[t &* 4 &+ 3])
                }
                for t in 16..<64 {
                    let a = w[t &- 15]
                    let b = w[t &- 2]
                    let s0 = (a >> 7 | a << 25) ^ (a >> 18 | a << 14) ^ (a >> 3)
                    let s1 = (b >> 17 | b << 15) ^ (b >> 19 | b << 13) ^ (b >> 10)
                    w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
                }
                var a = state[0]
                var b = state[1]
                var c = state[2]
                var d = state[3]
                var e = state[4]
                var f = state[5]
                var g = state[6]
                var h = state[7]
                for t in 0..<64 {
                    let s1 = (e >> 6 | e << 26) ^ (e >> 11 | e << 21) ^ (e >> 25 | e << 7)
                    let temp1 = h &+ s1 &+ ((e & f) ^ (~e & g)) &+ k[t] &+ w[t]
                    let s0 = (a >> 2 | a << 30) ^ (a >> 13 | a << 19) ^ (a >> 22 | a << 10)
                    let temp2 = s0 &+ ((a & b) ^ (a & c) ^ (b & c))
                    h = g
                    g = f
                    f = e
                    e = d &+ temp1
                    d = c
                    c = b
                    b = a
                    a = temp1 &+ temp2
                }
                state[0] &+= a
                state[1] &+= b
                state[2] &+= c
                state[3] &+= d
                state[4] &+= e
                state[5] &+= f
                state[6] &+= g
                state[7] &+= h
            }
        }
    }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

/// A byte sequence cut into arrays of up to 64 KiB.
private struct ChunkedBytes<Base: Sequence<UInt8>>: Sequence, IteratorProtocol {
    var iterator: Base.Iterator
    init(_ base: Base) { iterator = base.makeIterator() }
    mutating func next() -> [UInt8]? {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(65_536)
        while chunk.count < 65_536, let byte = iterator.next() { chunk.append(byte) }
        return chunk.isEmpty ? nil : chunk
    }
}
