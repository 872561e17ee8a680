import Synchronization

/// `/readyz`'s answer, checked against the database at most once per `freshFor`: callers in
/// that window share one check (the one in flight, or its answer). A probe needs no token, so
/// without this anyone could turn requests into database work as fast as they could send them.
final class ReadinessCheck: Sendable {
    private let freshFor: Duration
    private let check: @Sendable () async -> HTTPResponse
    private let latest = Mutex<(started: ContinuousClock.Instant, answer: Task<HTTPResponse, Never>)?>(nil)

    /// A check that runs `check` when the last one started `freshFor` ago or more.
    init(freshFor: Duration, check: @escaping @Sendable () async -> HTTPResponse) {
        self.freshFor = freshFor
        self.check = check
    }

    /// The answer of the latest check, made now when it is older than `freshFor`.
    func answer() async -> HTTPResponse {
        let now = ContinuousClock.now
        let answer = latest.withLock { latest in
            if let latest, now - latest.started < freshFor { return latest.answer }
            let answer = Task { [check] in await check() }
            latest = (now, answer)
            return answer
        }
        return await answer.value
    }
}
