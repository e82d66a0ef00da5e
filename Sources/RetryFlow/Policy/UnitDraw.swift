extension RandomNumberGenerator {
    /// A number in 0..<1 from the top 53 of 64 random bits: what Python's `random.random()` and .NET's
    /// `NextDouble()` return, so `a + (b - a) * unitDraw()` is Python's `random.uniform(a, b)` and
    /// a test can choose the draw exactly (bits `UInt64(u * 2^53) << 11` give `u`).
    package mutating func unitDraw() -> Double { Double(next() >> 11) * 0x1p-53 }
}
