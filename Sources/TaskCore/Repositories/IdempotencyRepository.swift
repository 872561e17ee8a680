import Foundation

/// A request's answer kept under its client's idempotency key, to replay to a retry.
public struct KeptAnswer: Hashable, Sendable {
    /// The status code.
    public var status: Int
    /// Header lines, `Name: value`, in order.
    public var headers: [String]
    /// The body; nil when it was not kept (it held a secret, shown once).
    public var body: [UInt8]?

    /// An answer with `status`, `headers` and `body`.
    public init(status: Int, headers: [String], body: [UInt8]?) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// What claiming an idempotency key found.
public enum IdempotencyClaim: Hashable, Sendable {
    /// The key is this request's now, claimed at `at`: run it, renewing the claim while it
    /// runs (`renewIdempotencyKey`, naming the claim by `at`), then keep its answer or forget
    /// the key.
    case claimed(at: Date)
    /// A request with this fingerprint holds the key and has not answered yet.
    case running(fingerprint: [UInt8])
    /// A request with this fingerprint answered this.
    case answered(fingerprint: [UInt8], KeptAnswer)
    /// A request with this fingerprint changed the store, but its answer was lost: it failed
    /// after its change was made (a connection lost during its commit), or it was abandoned
    /// after it (its process stopped, and its claim was no longer renewed). It must not run
    /// again.
    case tookEffect(fingerprint: [UInt8])
}

/// How a request keeps its claim of an idempotency key while it runs: it renews the claim every
/// `renewalInterval`, and a claim not renewed for `lapsesAfter` is taken for abandoned (its
/// process stopped, or lost its machine), so a retry need not wait for a bound as long as the
/// longest request (an import may run for many minutes). Every process sharing a store must
/// use the same lease: one judges abandoned what another renews.
public struct IdempotencyLease: Hashable, Sendable {
    /// How long a claim stands without a renewal.
    public var lapsesAfter: TimeInterval
    /// How often a running request renews its claim: a sixth of `lapsesAfter`, so that a claim
    /// lapses only after five renewals in a row were lost or late (a pool busy past its
    /// timeout, a loaded machine), never for one.
    public var renewalInterval: TimeInterval { lapsesAfter / 6 }

    /// A lease lapsing after `lapsesAfter` seconds.
    public init(lapsesAfter: TimeInterval) {
        self.lapsesAfter = lapsesAfter
    }

    /// 20 seconds, renewed every 3.3: a request done sooner (nearly every POST) writes no
    /// renewal, and a claim whose server died lapses well within the 30 seconds the Swift client
    /// waits on `idempotency_key_in_use`, so its retry is answered rather than given up on.
    public static let standard = IdempotencyLease(lapsesAfter: 20)
}

/// The idempotency key of the request running, for the store to note when the request changes
/// something: bound (`IdempotentEffects.$key.withValue`) around the request's work, so that a
/// key whose request changed the store is never freed for another run, even when the request
/// then fails or its process stops before its answer is kept. In PostgreSQL the note is
/// written by the same transaction as the change (migration 0030), so the two commit or roll
/// back together.
///
/// The key names the claim its run holds (`claimedAt`): a write of a run whose claim was taken
/// over by another (its renewals stopped past the lease while the run went on: its process
/// paused, its pool starved) or is gone is refused with `IdempotencyClaimTakenOver`, and writes
/// nothing (migration 0037), so the request never takes effect twice.
public enum IdempotentEffects {
    /// The key, while its request runs.
    @TaskLocal public static var key: Key?

    /// A user's idempotency key, as claimed by one run of its request.
    public struct Key: Hashable, Sendable {
        /// Whose key.
        public var user: UserID
        /// The key as sent.
        public var key: String
        /// When the run claimed it (`IdempotencyClaim.claimed(at:)`): the claim it holds.
        public var claimedAt: Date

        /// `user`'s `key`, as claimed at `claimedAt`.
        public init(user: UserID, key: String, claimedAt: Date) {
            self.user = user
            self.key = key
            self.claimedAt = claimedAt
        }
    }
}

/// A write refused because the run making it no longer holds the claim of its idempotency key:
/// another attempt of the request took the claim over (it answers for the request), or the
/// claim is gone. Nothing of the refused write was kept.
public struct IdempotencyClaimTakenOver: Error, Hashable, Sendable, CustomStringConvertible {
    /// The key whose claim the run lost.
    public var key: String

    /// The claim of `key` was lost.
    public init(key: String) {
        self.key = key
    }

    /// One line for people.
    public var description: String {
        "the claim of idempotency key \(key) was taken over by another attempt of the request, or is gone: this run wrote nothing"
    }
}

/// Idempotency keys and their answers, per user, shared by every process of the store (the
/// HTTP API's `Idempotency-Key`). The rules (which requests, which answers are kept, what a
/// mismatch means) are the server's; the store keeps claims atomically.
public protocol IdempotencyRepository: Sendable {
    /// Claims `key` of `user` for a request with `fingerprint` at `time`, unless a claim of it
    /// stands: one younger than `lifetime`, and when neither answered nor noted as having taken
    /// effect, still renewed by its request (`renewIdempotencyKey`): last renewed (or claimed)
    /// less than `lapsesAfter` ago. Older ones are claimed again; one abandoned after it took
    /// effect is `tookEffect`. A claim the store holds with no renewal of its own (PostgreSQL:
    /// written before migration 0036, or by a taskserve older than it) stands until
    /// `abandonedAfter`.
    func claimIdempotencyKey(
        _ key: String, of user: UserID, fingerprint: [UInt8], at time: Date, lifetime: TimeInterval, lapsesAfter: TimeInterval,
        abandonedAfter: TimeInterval
    ) async throws -> IdempotencyClaim
    /// Renews at `time` the claim of `key` made at `claimedAt` by `fingerprint`, whose request
    /// is still running: true if it was renewed; false, changing nothing, when that claim is
    /// settled, gone, or taken over by another run (its request should stop renewing it).
    func renewIdempotencyKey(_ key: String, of user: UserID, fingerprint: [UInt8], claimedAt: Date, at time: Date) async throws -> Bool
    /// Keeps `answer` for the claim of `key` made at `claimedAt` by `fingerprint`, or with nil
    /// forgets the claim (the request failed: a retry runs again), unless the request took
    /// effect: then the claim stands, answered with nothing (`tookEffect`). A claim another run
    /// took over (a new `claimedAt`) is not this run's to settle, and is left as it is.
    func settleIdempotencyKey(
        _ key: String, of user: UserID, fingerprint: [UInt8], claimedAt: Date, answer: KeptAnswer?, at time: Date
    ) async throws
}
