/// A condition that did not come true in time.
public struct GaveUpWaiting: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "gave up waiting for \(what)" }

    public init(what: String) { self.what = what }
}

/// Checks `condition` every `interval` until it holds; throws `GaveUpWaiting` after `limit`.
public func waitUntil(
    _ what: String, limit: Duration = .seconds(15), every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw GaveUpWaiting(what: what) }
        try await Task.sleep(for: interval)
    }
}
