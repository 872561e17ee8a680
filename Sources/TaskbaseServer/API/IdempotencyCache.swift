import Hashing
import Foundation
import Synchronization
import TaskCore
import TaskbaseWire

/// `Idempotency-Key` on POST: the first response to a key (per user) is kept for a day and
/// replayed to retries with the same request; the same key with another request is refused (422),
/// and a retry while the first is still running is told to wait (409). Kept per process.
final class IdempotencyCache: Sendable {
    private enum Entry {
        case running(fingerprint: [UInt8])
        case done(fingerprint: [UInt8], response: HTTPResponse, at: ContinuousClock.Instant)
    }

    private struct Key: Hashable {
        var user: UserID
        var key: String
    }

    /// The entries, and the body bytes of those kept (`done`), counted as they change.
    private struct State {
        private(set) var entries: [Key: Entry] = [:]
        private(set) var keptBytes = 0

        subscript(key: Key) -> Entry? {
            get { entries[key] }
            set {
                keptBytes += (newValue.map(Self.size) ?? 0) - (entries[key].map(Self.size) ?? 0)
                entries[key] = newValue
            }
        }

        /// Drops the oldest tenth of the kept answers (one at least), never `spared`'s; false
        /// when there was none to drop.
        mutating func evictOldest(sparing spared: Key? = nil) -> Bool {
            let done = entries.compactMap { key, entry -> (Key, ContinuousClock.Instant)? in
                if case .done(_, _, let at) = entry, key != spared { (key, at) } else { nil }
            }.sorted { $0.1 < $1.1 }
            for (key, _) in done.prefix(max(1, done.count / 10)) { self[key] = nil }
            return !done.isEmpty
        }

        /// The bytes an entry holds: a kept answer's body.
        private static func size(_ entry: Entry) -> Int {
            if case .done(_, let response, _) = entry { IdempotencyCache.keptSize(of: response) ?? 0 } else { 0 }
        }
    }

    private let entries = Mutex(State())
    /// How long a response is kept.
    let lifetime: Duration = .seconds(86_400)
    /// The most responses kept; the oldest go first.
    let capacity = 10_000
    /// The largest response body kept. A larger one (an import's report listing its refused
    /// rows) is not: the key is forgotten and a retry runs again, which an import by external
    /// id survives unchanged. Responses were once kept whole, 10,000 of them: a user could hold
    /// gigabytes with keyed imports of 16 MB answers.
    let maxKeptBodyBytes: Int
    /// The most body bytes kept in all; the oldest go first.
    let maxKeptBytes: Int

    /// A cache keeping bodies up to `maxKeptBodyBytes` each, `maxKeptBytes` in all.
    init(maxKeptBodyBytes: Int = 256 << 10, maxKeptBytes: Int = 64 << 20) {
        self.maxKeptBodyBytes = maxKeptBodyBytes
        self.maxKeptBytes = maxKeptBytes
    }

    /// What makes two requests the same: method, path, query and body, as a SHA-256 digest (an
    /// import's body may be megabytes; the cache keeps 32 bytes of it). A spooled body counts by
    /// the digest taken while it arrived. Each part is written with its length, since the path
    /// and the query arrive decoded: `?a=1&b=2` and `?a=1%26b%3D2` are two requests.
    static func fingerprint(_ request: HTTPRequest) -> [UInt8] {
        var hasher = SHA256()
        var head = "\(request.method) \(request.path.utf8.count):\(request.path)"
        for (name, value) in request.query { head += " \(name.utf8.count):\(name)=\(value.utf8.count):\(value)" }
        hasher.update((head + "\n").utf8)
        if let spooled = request.spooledBody {
            hasher.update("spooled \(spooled.byteCount)\n".utf8)
            hasher.update(spooled.digest)
        } else {
            hasher.update(request.body)
        }
        return hasher.finalize()
    }

    /// Runs `body` unless this key already answered (or is answering) for `user`.
    func run(key: String, user: UserID, fingerprint: [UInt8], _ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        guard Self.isUsable(key) else {
            throw TaskError.validation(
                field: "Idempotency-Key", reason: "a key is 1 to 255 printable ASCII characters (space to ~); a UUID makes a good one")
        }
        let id = Key(user: user, key: key)
        let now = ContinuousClock.now
        let earlier: HTTPResponse? = try entries.withLock { entries in
            switch entries[id] {
            case .running(let seen):
                guard seen == fingerprint else { throw Self.reused(key) }
                throw ProblemDocument(
                    .idempotencyKeyReused, detail: "a request with Idempotency-Key \(key) is still running; retry shortly", status: 409)
            case .done(let seen, let response, let at) where now - at < lifetime:
                guard seen == fingerprint else { throw Self.reused(key) }
                return response
            default:
                if entries.entries.count >= capacity { _ = entries.evictOldest() }
                entries[id] = .running(fingerprint: fingerprint)
                return nil
            }
        }
        if let earlier { return earlier }
        do {
            let response = try await body()
            entries.withLock { entries in
                // Only successes are kept: a refused request may be retried once corrected.
                guard (200..<300).contains(response.status), let size = Self.keptSize(of: response), size <= maxKeptBodyBytes else {
                    entries[id] = nil
                    return
                }
                entries[id] = .done(fingerprint: fingerprint, response: response, at: now)
                while entries.keptBytes > maxKeptBytes, entries.evictOldest(sparing: id) {}
            }
            return response
        } catch {
            entries.withLock { $0[id] = nil }
            throw error
        }
    }

    /// 1 to 255 bytes of printable ASCII. Not any text: header bytes that are not UTF-8 arrive
    /// repaired (U+FFFD), so `k\xFF` and `k\xFE` would be one key, and Swift compares strings
    /// canonically, so `é` and `e` with U+0301 would be one key too; two requests the client
    /// meant apart would share an answer, or the second be refused as a reuse.
    static func isUsable(_ key: String) -> Bool {
        (1...255).contains(key.utf8.count) && key.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    private static func reused(_ key: String) -> ProblemDocument {
        ProblemDocument(.idempotencyKeyReused, detail: "Idempotency-Key \(key) was used for a different request; use a new key for a new request")
    }

    /// The bytes a kept response holds: its body (nil for a streamed one, which is never kept).
    private static func keptSize(of response: HTTPResponse) -> Int? {
        if case .bytes(let body) = response.body { body.count } else { nil }
    }
}
