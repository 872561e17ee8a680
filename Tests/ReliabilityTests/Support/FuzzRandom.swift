/// PCG-XSH-RR (O'Neill): a small deterministic generator, so a fuzz run is replayed exactly
/// from the seed it prints.
struct FuzzRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed ^ 0x853C_49E6_748F_EA9B
        _ = next32()
    }

    mutating func next() -> UInt64 {
        UInt64(next32()) << 32 | UInt64(next32())
    }

    private mutating func next32() -> UInt32 {
        let old = state
        state = old &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let shifted = UInt32(truncatingIfNeeded: ((old >> 18) ^ old) >> 27)
        let rotation = UInt32(truncatingIfNeeded: old >> 59)
        return shifted >> rotation | shifted << ((~rotation &+ 1) & 31)
    }
}
