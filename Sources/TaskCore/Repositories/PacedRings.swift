/// How often a doorbell's rings are acted on: anyone holding the runtime login can ring a
/// PostgreSQL doorbell as often as they like, and a consumer that reads the database on each
/// ring would otherwise read without pause for as long as the flood lasts. Up to `burst` rings
/// pass at once, as real traffic rings (a revocation, a few writes together) and is never held
/// back; beyond that, one per `spacing` (a token bucket).
public struct RingPace: Sendable, Hashable {
    /// The least time between two rings once the burst is spent.
    public var spacing: Duration
    /// How many rings pass without waiting after a quiet time.
    public var burst: Int

    public init(spacing: Duration, burst: Int) {
        self.spacing = spacing
        self.burst = max(1, burst)
    }

    /// The most rings acted on in `time`: the burst, and one per spacing after it.
    public func mostRings(in time: Duration) -> Int {
        burst + Int(time / spacing) + 1
    }
}

/// A doorbell's rings, handed on as `pace` allows. A ring that comes when the allowance is
/// spent waits for the next one (rings coalesce in the doorbell meanwhile, so none queues up
/// behind the wait).
public struct PacedRings<Base: AsyncSequence>: AsyncSequence where Base.Element == Void {
    public typealias Element = Void

    let base: Base
    let pace: RingPace

    /// Hands on the base's rings within the pace's allowance.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let pace: RingPace
        /// Rings that may pass now, counted at `counted`.
        var allowance: Double
        var counted: ContinuousClock.Instant

        mutating func refill(at now: ContinuousClock.Instant) {
            allowance = Swift.min(Double(pace.burst), allowance + (now - counted) / pace.spacing)
            counted = now
        }

        /// The next ring, once the allowance has one; throws when cancelled while waiting, or
        /// what the base throws.
        public mutating func next() async throws -> Void? {
            refill(at: .now)
            if allowance < 1 {
                try await Task.sleep(until: counted + pace.spacing * (1 - allowance), clock: .continuous)
            }
            guard try await base.next() != nil else { return nil }
            refill(at: .now)
            allowance = Swift.max(0, allowance - 1)
            return ()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), pace: pace, allowance: Double(pace.burst), counted: .now)
    }
}

extension AsyncSequence where Element == Void {
    /// These rings, as `pace` allows (`PacedRings`).
    public func paced(_ pace: RingPace) -> PacedRings<Self> {
        PacedRings(base: self, pace: pace)
    }
}
