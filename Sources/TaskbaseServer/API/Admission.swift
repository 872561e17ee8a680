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

/// At most `limit` places per key at once: each key's share, which no key can take from
/// another (a user's event streams).
final class KeyedAdmission<Key: Hashable & Sendable>: Sendable {
    /// The places each key may take.
    let limit: Int
    private let taken = Mutex<[Key: Int]>([:])

    /// `limit` places a key (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a place of `key`'s; false when all of them are taken.
    func enter(_ key: Key) -> Bool {
        taken.withLock { taken in
            guard taken[key, default: 0] < limit else { return false }
            taken[key, default: 0] += 1
            return true
        }
    }

    /// Gives a place of `key`'s back.
    func leave(_ key: Key) {
        taken.withLock { taken in
            let left = taken[key, default: 0] - 1
            taken[key] = left > 0 ? left : nil
        }
    }

    /// The places `key` holds now.
    func inUse(_ key: Key) -> Int { taken.withLock { $0[key, default: 0] } }
}
