/// A doorbell's rings, handed on at most once per `spacing`: anyone holding the runtime login
/// can ring a PostgreSQL doorbell as often as they like, and a consumer that reads the database
/// on each ring would otherwise read without pause for as long as the flood lasts. The first
/// ring after a quiet `spacing` comes at once; one that comes sooner waits out the rest of it
/// (rings coalesce in the doorbell meanwhile, so none queues up behind the wait).
public struct PacedRings<Base: AsyncSequence>: AsyncSequence where Base.Element == Void {
    public typealias Element = Void

    let base: Base
    let spacing: Duration

    /// Hands on the base's rings, each at least `spacing` after the one before.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let spacing: Duration
        var last: ContinuousClock.Instant?

        /// The next ring, no sooner than `spacing` after the last; throws when cancelled while
        /// waiting, or what the base throws.
        public mutating func next() async throws -> Void? {
            if let last { try await Task.sleep(until: last + spacing, clock: .continuous) }
            guard try await base.next() != nil else { return nil }
            last = .now
            return ()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), spacing: spacing, last: nil)
    }
}

extension AsyncSequence where Element == Void {
    /// These rings, at most one per `spacing` (`PacedRings`).
    public func paced(_ spacing: Duration) -> PacedRings<Self> {
        PacedRings(base: self, spacing: spacing)
    }
}
