import Hashing
import Foundation
import PGStore
import Synchronization
import TaskCore
import TaskbaseWire

/// `Idempotency-Key` on POST and DELETE: the first response to a key (per user) is kept for a day and
/// replayed to retries with the same request; the same key with another request is refused (422),
/// and a retry while the first is still running is told to wait (409 `idempotency_key_in_use`). Kept by the store
/// (`IdempotencyRepository`: in PostgreSQL, `idempotency_keys`), so every process sharing the
/// database knows a key; it was once kept per process, and a retry that a balancer sent to
/// another process ran again. While a request runs, its claim is renewed (`lease`): when its
/// process dies mid-request, the claim lapses within `lease.lapsesAfter` and a retry elsewhere
/// runs it (or is told its answer was lost, if it had taken effect). A run whose claim lapsed
/// while it was only held up (its process paused, its renewals starved of connections) and was
/// taken over writes nothing: the store refuses its writes (`IdempotencyClaimTakenOver`,
/// migration 0037) and it is answered 409 `idempotency_key_in_use`.
struct IdempotencyCache: Sendable {
    let service: TaskService
    /// The largest response body kept. A larger one (an import's report listing its refused
    /// rows) is kept without its body: a retry is told the first succeeded, and runs nothing.
    let maxKeptBodyBytes: Int
    /// How a running request keeps its claim, and when another's is taken for abandoned.
    let lease: IdempotencyLease

    /// Keys kept by `service`'s store, with bodies up to `maxKeptBodyBytes`, claims held by `lease`.
    init(service: TaskService, maxKeptBodyBytes: Int = 256 << 10, lease: IdempotencyLease = .standard) {
        self.service = service
        self.maxKeptBodyBytes = maxKeptBodyBytes
        self.lease = lease
    }

    /// What makes two requests the same: method, the resource the path names (`resource`, as
    /// the route read it: `/v1/teams/core/tasks/` and `/v1/teams/C%4FRE/tasks` name the team
    /// CORE as `/v1/teams/CORE/tasks` does, and a retry through either is the same request, not
    /// a reuse of the key), the query as the route read it (`query`: none on a route that reads
    /// none, so a retry that adds `?utm=x`, which such a route ignores, is the same request; an
    /// import's options spelled one way), the body's media type (`mediaType`) and
    /// `Content-Encoding` (an import reads its charset from the one and may unpack the other) and
    /// body, as a SHA-256 digest (an import's body may be megabytes; the cache keeps 32 bytes of
    /// it). A spooled body counts by the digest taken while it arrived. Each part is written with
    /// its length, since the resource and the query are decoded: `?a=1&b=2` and `?a=1%26b%3D2`
    /// are two requests.
    static func fingerprint(_ request: HTTPRequest, resource: String, query: [(name: String, value: String)]) -> [UInt8] {
        var hasher = SHA256()
        var head = "\(request.method) \(resource.utf8.count):\(resource)"
        for (name, value) in query { head += " \(name.utf8.count):\(name)=\(value.utf8.count):\(value)" }
        for (name, value) in [("content-type", mediaType(of: request)), ("content-encoding", request.header("content-encoding") ?? "")] {
            head += " \(name)=\(value.utf8.count):\(value)"
        }
        hasher.update((head + "\n").utf8)
        if let spooled = request.spooledBody {
            hasher.update("spooled \(spooled.byteCount)\n".utf8)
            hasher.update(spooled.digest)
        } else {
            hasher.update(request.body)
        }
        return hasher.finalize()
    }

    /// The body's `Content-Type` as far as a route reads it: the type without case or spaces,
    /// and for any type but JSON (always UTF-8, RFC 8259) its `charset`, lowercased and unquoted
    /// (an import decodes by it). `application/json` and `Application/JSON; charset=utf-8` are
    /// one request; `text/csv` and `text/csv; charset=windows-1252` are two.
    static func mediaType(of request: HTTPRequest) -> String {
        guard let type = request.mediaType else { return "" }
        guard type != "application/json", let charset = request.charset else { return type }
        return "\(type); charset=\(charset.lowercased())"
    }

    /// Runs `body` unless this key already answered (or is answering) for `user`. With
    /// `keepsBody` false (an answer holding a secret, shown once) the answer is kept without its
    /// body, and a retry is told so rather than shown the secret again.
    func run(
        key: String, user: UserID, fingerprint: [UInt8], keepsBody: Bool = true, _ body: () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard Self.isUsable(key) else {
            throw TaskError.validation(
                field: "Idempotency-Key", reason: "a key is 1 to 255 printable ASCII characters (space to ~); a UUID makes a good one")
        }
        let claimedAt: Date
        switch try await service.claimIdempotencyKey(key, of: user, fingerprint: fingerprint, lease: lease) {
        case .running(let seen):
            guard seen == fingerprint else { throw Self.reused(key) }
            throw ProblemDocument(.idempotencyKeyInUse, detail: "a request with Idempotency-Key \(key) is still running; retry shortly")
        case .answered(let seen, let answer):
            guard seen == fingerprint else { throw Self.reused(key) }
            return try replay(answer, key: key)
        case .tookEffect(let seen):
            guard seen == fingerprint else { throw Self.reused(key) }
            throw ProblemDocument(
                .answerLost,
                detail:
                    "the request with Idempotency-Key \(key) took effect, but its answer was lost (it failed after its change was made, or its server stopped): look before sending it again, and send a new request with a new key"
            )
        case .claimed(let at):
            claimedAt = at
        }
        let settle: @Sendable (KeptAnswer?) async -> Void = { [service] answer in
            // Not cancelled with the request: a claim left unsettled would hold its key until
            // its lease lapsed, and a retry meanwhile would be told it is still running.
            // Connecting too: a connection attempt ends when its task is cancelled.
            await withCancellationShield {
                try? await service.settleIdempotencyKey(key, of: user, fingerprint: fingerprint, claimedAt: claimedAt, answer: answer)
            }
        }
        let renewal = renewing(key: key, user: user, fingerprint: fingerprint, claimedAt: claimedAt)
        do {
            // Whatever the request writes notes on the key that it took effect, in the same
            // transaction: such a key is never freed for another run, even if what follows fails.
            let running = IdempotentEffects.Key(user: user, key: key, claimedAt: claimedAt)
            let response = try await IdempotentEffects.$key.withValue(running) {
                // The renewals end with the request's work, returned or thrown, before it settles.
                defer { renewal.cancel() }
                return try await body()
            }
            // Only successes are kept: a refused request may be retried once corrected (unless
            // it took effect before it failed: the store keeps its key, answered with nothing).
            if (200..<300).contains(response.status), case .bytes(let bytes) = response.body {
                let whole = keepsBody && bytes.count <= maxKeptBodyBytes
                await settle(
                    KeptAnswer(status: response.status, headers: response.headers.map { "\($0.name): \($0.value)" }, body: whole ? bytes : nil))
            } else {
                await settle(nil)
            }
            return response
        } catch is IdempotencyClaimTakenOver {
            // The run's claim lapsed while it went on (its process paused, its renewals starved)
            // and a retry took it over: the store refused the write, and the claim is the
            // retry's to settle. The client's next retry is answered with the retry's answer.
            throw ProblemDocument(
                .idempotencyKeyInUse,
                detail:
                    "another attempt of the request with Idempotency-Key \(key) took it over while this one was held up, and its answer goes to that attempt; this one changed nothing: retry shortly to get it"
            )
        } catch {
            await settle(nil)
            throw error
        }
    }

    /// Renews the claim made at `claimedAt` every `lease.renewalInterval` until cancelled, or
    /// until the claim no longer stands (settled, or taken over by another run). A task of its
    /// own, not a child of the request's: a request cancelled (its client gone) whose work goes
    /// on keeps its key until that work ends. The first renewal comes one interval in, so a
    /// request shorter than that (nearly every POST) writes none; a renewal that fails (the
    /// database out of reach a moment) is tried again an interval later.
    private func renewing(key: String, user: UserID, fingerprint: [UInt8], claimedAt: Date) -> Task<Void, Never> {
        Task { [service, lease] in
            while (try? await Task.sleep(for: .seconds(lease.renewalInterval))) != nil {
                if (try? await service.renewIdempotencyKey(key, of: user, fingerprint: fingerprint, claimedAt: claimedAt)) == false { return }
            }
        }
    }

    /// The kept answer as a response; one kept without its body (a secret, or too large) is a
    /// 409 saying why.
    private func replay(_ answer: KeptAnswer, key: String) throws -> HTTPResponse {
        let headers = answer.headers.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].dropFirst()))
        }
        guard let body = answer.body else {
            let made = headers.first { $0.name.lowercased() == "location" }.map { " (\($0.value))" } ?? ""
            throw ProblemDocument(
                .answerWithheld,
                detail:
                    "the request with Idempotency-Key \(key) succeeded\(made), and its answer is not kept: a new token's secret is shown only once (if it was lost, revoke the token and make another with a new key), and an answer over \(maxKeptBodyBytes >= 1024 ? "\(maxKeptBodyBytes >> 10) KiB" : "\(maxKeptBodyBytes) bytes"), such as a long import report, is not kept either (read what it made instead)"
            )
        }
        return HTTPResponse(status: answer.status, headers: headers, body: .bytes(body))
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
}
