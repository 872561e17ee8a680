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

/// A token bucket per user: it holds up to `limit.requests`, a request takes one, and it refills
/// at `limit.requests` per `limit.interval`. Per process: several `taskserve` processes behind a
/// balancer allow a user that many times the limit between them.
final class RateLimiter: Sendable {
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
    private let buckets = Mutex<[UserID: Bucket]>([:])
    /// Past this many users, full buckets are dropped (a user absent long enough to refill
    /// needs no entry): memory stays bounded by the users active within one interval.
    private let pruneAbove: Int

    /// A limiter allowing each user `limit`.
    init(_ limit: RateLimit, pruneAbove: Int = 4_096) {
        self.limit = limit
        let seconds = Double(limit.interval.components.seconds) + Double(limit.interval.components.attoseconds) / 1e18
        refill = Double(limit.requests) / seconds
        self.pruneAbove = pruneAbove
    }

    /// Takes one request from `user`'s bucket at `now`, or says how long until there is one.
    func admit(_ user: UserID, now: ContinuousClock.Instant = .now) -> Decision {
        buckets.withLock { buckets in
            let capacity = Double(limit.requests)
            var bucket = buckets[user].map { Bucket(level: min(capacity, $0.level + refill * Self.seconds(now - $0.at)), at: now) }
            if bucket == nil {
                if buckets.count >= pruneAbove { prune(&buckets, now: now) }
                bucket = Bucket(level: capacity, at: now)
            }
            guard var bucket else { return .refused(retryAfter: 1) }
            guard bucket.level >= 1 else {
                buckets[user] = bucket
                return .refused(retryAfter: max(1, Int(((1 - bucket.level) / refill).rounded(.up))))
            }
            bucket.level -= 1
            buckets[user] = bucket
            return .admitted(remaining: Int(bucket.level))
        }
    }

    /// The users it holds a bucket for (for tests of its memory).
    var trackedUsers: Int { buckets.withLock { $0.count } }

    private func prune(_ buckets: inout [UserID: Bucket], now: ContinuousClock.Instant) {
        let capacity = Double(limit.requests)
        buckets = buckets.filter { $0.value.level + refill * Self.seconds(now - $0.value.at) < capacity }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
