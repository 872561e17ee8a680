import Foundation
import TaskCore
import TaskbaseClient
import TaskbaseTestSupport
import Testing

/// The server's `Retry-After` is honoured in full (up to `requestTimeout`), by requests and by
/// the change feed's opening, which retries as a GET does. Before, a request's wait was cut to
/// `maximumBackoff` (5 s by default: a rate limit's 30 s became three refused retries and an
/// error), an HTTP-date `Retry-After` counted as none, and the feed's first connection was not
/// retried at all (a board started during a rolling restart failed where a list read succeeded).
@Suite("The client and Retry-After; the change feed's opening retried")
struct RetryAfterTests {
    static let server = Result { try FaultServer() }

    func run() -> String { UUID().uuidString }

    @Test("a 429 asking for longer than maximumBackoff is waited in full, then the retry succeeds", arguments: ["patient", "patient-date"])
    func waitsAsAsked(scenario: String) async throws {
        let server = try Self.server.get(), run = run()
        let client = server.client(scenario, run: run) { $0.maximumBackoff = .milliseconds(100) }
        let started = ContinuousClock.now
        let me = try await client.me()
        #expect(me.email == "ann@example.com")
        let attempts = try await server.log(run)
        // The fixture refuses for 2 s after the first request, saying so each time.
        #expect(attempts.count == 2, "\(attempts)")
        #expect(ContinuousClock.now - started >= .milliseconds(1_900))
    }

    @Test("a Retry-After longer than requestTimeout is not waited: the 429 comes back at once")
    func longWaitIsNotWaited() async throws {
        let server = try Self.server.get(), run = run()
        let client = server.client("long-429", run: run)
        let started = ContinuousClock.now
        await #expect(throws: TaskbaseClientError.http(status: 429, detail: "slow down")) { _ = try await client.me() }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(try await server.log(run).count == 1)
    }

    @Test("opening the change feed after two 503s is retried, as a GET is, and the feed delivers")
    func feedOpeningRetried() async throws {
        let server = try Self.server.get(), run = run()
        let stream = try await server.client("unavailable", run: run).changes(in: try TeamKey("CORE"))
        var iterator = stream.makeAsyncIterator()
        guard case .change(let change)? = try await iterator.next() else {
            Issue.record("the feed delivered no change")
            return
        }
        #expect(change.version == 2)
        // Two 503s, then the stream (which the fixture drops after two events: a reconnect may
        // already follow).
        #expect(try await server.log(run).filter { $0["path"] == "v1/teams/CORE/events" }.count >= 3)
    }

    @Test("opening the change feed waits out a 429's Retry-After beyond maximumBackoff")
    func feedOpeningWaitsAsAsked() async throws {
        let server = try Self.server.get(), run = run()
        let client = server.client("patient", run: run) { $0.maximumBackoff = .milliseconds(100) }
        let started = ContinuousClock.now
        _ = try await client.changes(in: try TeamKey("CORE"))
        #expect(ContinuousClock.now - started >= .milliseconds(1_900))
        #expect(try await server.log(run).filter { $0["path"] == "v1/teams/CORE/events" }.count == 2)
    }

    @Test("opening the change feed with its retries spent reports the last 503")
    func feedOpeningBounded() async throws {
        let server = try Self.server.get(), run = run()
        let client = server.client("unavailable", run: run) { $0.retries = 1 }
        await #expect(throws: TaskbaseClientError.http(status: 503, detail: "every connection is busy")) {
            _ = try await client.changes(in: try TeamKey("CORE"))
        }
        #expect(try await server.log(run).count == 2)
    }
}
