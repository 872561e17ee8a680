import Synchronization
import TaskCore

/// How many requests one user may make: `requests` per `interval`, which may all come at once.
public struct RateLimit: Sendable, Equatable {
    /// The requests allowed per `interval` (and the most allowed in a burst).
    public var requests: Int
    /// The interval over which they are allowed.
    public var interval: Duration

    /// `requests` per `interval`; both must be positive.
    public init(requests: Int, per interval: Duration) {
        precondition(requests > 0 && interval > .zero, "a rate limit allows some requests over some time")
        self.requests = requests
        self.interval = interval
    }
}

/// A token bucket per key (a user, a client address): it holds up to `limit.requests`, a
/// request takes one, and it refills at `limit.requests` per `limit.interval`. Per process:
/// several `taskserve` processes behind a balancer allow a key that many times the limit.
final class RateLimiter<Key: Hashable & Sendable>: Sendable {
    /// What `admit` decided.
    enum Decision: Equatable {
        /// Admitted, with this many requests left right now.
        case admitted(remaining: Int)
        /// Refused: the next request is allowed in this many seconds (at least 1).
        case refused(retryAfter: Int)
    }

    private struct Bucket {
        var level: Double
        var at: ContinuousClock.Instant
    }

    let limit: RateLimit
    /// Requests allowed per second.
    private let refill: Double
    private let buckets = Mutex<[Key: Bucket]>([:])
    /// Past this many keys, full buckets are dropped (a key absent long enough to refill
    /// needs no entry): memory stays bounded by the keys active within one interval.
    private let pruneAbove: Int

    /// A limiter allowing each key `limit`.
    init(_ limit: RateLimit, pruneAbove: Int = 4_096) {
        self.limit = limit
        refill = Double(limit.requests) / limit.interval.seconds
        self.pruneAbove = pruneAbove
    }

    /// Takes one request from `key`'s bucket at `now`, or says how long until there is one.
    func admit(_ key: Key, now: ContinuousClock.Instant = .now) -> Decision {
        buckets.withLock { buckets in
            if buckets[key] == nil, buckets.count >= pruneAbove { prune(&buckets, now: now) }
            var held = buckets[key].map { level(of: $0, at: now) } ?? capacity
            guard held >= 1 else {
                buckets[key] = Bucket(level: held, at: now)
                return .refused(retryAfter: max(1, Int(((1 - held) / refill).rounded(.up))))
            }
            held -= 1
            buckets[key] = Bucket(level: held, at: now)
            return .admitted(remaining: Int(held))
        }
    }

    /// Puts back the request `admit` took for `key` (it turned out not to count).
    func giveBack(_ key: Key) {
        buckets.withLock { buckets in
            guard var bucket = buckets[key] else { return }
            bucket.level = min(capacity, bucket.level + 1)
            buckets[key] = bucket
        }
    }

    /// The keys it holds a bucket for (for tests of its memory).
    var trackedKeys: Int { buckets.withLock { $0.count } }

    /// The most a bucket holds.
    private var capacity: Double { Double(limit.requests) }

    /// What `bucket` holds at `now`, refilled since it was last touched.
    private func level(of bucket: Bucket, at now: ContinuousClock.Instant) -> Double {
        min(capacity, bucket.level + refill * (now - bucket.at).seconds)
    }

    private func prune(_ buckets: inout [Key: Bucket], now: ContinuousClock.Instant) {
        buckets = buckets.filter { level(of: $0.value, at: now) < capacity }
    }
}
