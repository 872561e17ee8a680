/// A condition that did not come true in time.
struct GaveUpWaiting: Error, CustomStringConvertible {
    var what: String
    var description: String { "gave up waiting for \(what)" }
}

/// Checks `condition` every 50 ms until it holds; throws after `limit`.
func waitUntil(_ what: String, limit: Duration = .seconds(15), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw GaveUpWaiting(what: what) }
        try await Task.sleep(for: .milliseconds(50))
    }
}
