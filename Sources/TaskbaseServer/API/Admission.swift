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
/// another (a user's event streams, a user's uploads).
final class KeyedAdmission<Key: Hashable & Sendable>: Sendable {
    /// The places each key may take.
    let limit: Int
    private let taken = Mutex<[Key: Int]>([:])

    /// `limit` places a key (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// A place taken, given back by its first `leave()` (a stream ends by more than one path).
    final class Place: Sendable {
        private let admission: KeyedAdmission
        private let key: Key
        private let left = Mutex(false)

        fileprivate init(_ admission: KeyedAdmission, _ key: Key) {
            self.admission = admission
            self.key = key
        }

        /// Gives the place back, the first time only.
        func leave() {
            guard
                left.withLock({ left in
                    defer { left = true }; return !left
                })
            else { return }
            admission.give(key)
        }
    }

    /// Takes a place of `key`'s; nil when all of them are taken.
    func enter(_ key: Key) -> Place? {
        let entered = taken.withLock { taken in
            guard taken[key, default: 0] < limit else { return false }
            taken[key, default: 0] += 1
            return true
        }
        return entered ? Place(self, key) : nil
    }

    private func give(_ key: Key) {
        taken.withLock { taken in
            let left = taken[key, default: 0] - 1
            taken[key] = left > 0 ? left : nil
        }
    }

}
