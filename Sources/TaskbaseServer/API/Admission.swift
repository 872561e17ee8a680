import Synchronization

/// A count of places: at most `limit` holders at once, the rest refused (not queued).
final class Admission: Sendable {
    /// The places.
    let limit: Int
    private let taken = Mutex(0)

    /// `limit` places (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a place; false when all are taken.
    func enter() -> Bool {
        taken.withLock { taken in
            guard taken < limit else { return false }
            taken += 1
            return true
        }
    }

    /// Gives a place back.
    func leave() {
        taken.withLock { $0 -= 1 }
    }

    /// The places taken now.
    var inUse: Int { taken.withLock { $0 } }
}
