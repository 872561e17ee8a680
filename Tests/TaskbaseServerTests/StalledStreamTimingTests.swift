import Foundation
import TaskCore
@testable import TaskbaseServer
import TaskbaseTestSupport
import Testing

/// A client that stops reading its event stream is cut off, "never slowing others": the
/// correctness of that is `EventStreamTests.slowClientIsCutOff`; this holds the time. Each change
/// is timed from before its write until a subscriber that keeps reading has it, first with that
/// subscriber alone, then beside two that read nothing until they are cut off (their socket
/// buffers and the server's queues for them full, the server's patience with them spent).
@Suite("A stalled event stream and the others' delivery time")
struct StalledStreamTimingTests {
    /// The p50, p99 and largest of `samples`.
    static func spread(_ samples: [Duration]) -> (p50: Duration, p99: Duration, max: Duration) {
        let sorted = samples.sorted()
        return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)], sorted.last ?? .zero)
    }

    @Test("beside streams that read nothing, another gets every change within 250 ms (about 50 ms alone), and the stalled are cut off")
    func stalledStreamSlowsNoOne() async throws {
        let f = try await ServerFixture.start(
            .memory, limits: HTTPServerLimits(streamSocketBufferBytes: 4_096), streamBufferBytes: 4_096, streamPatience: .milliseconds(300))
        let fast = try RawConnection(port: f.server.http.port)
        fast.get("/v1/teams/\(f.team)/events", headers: ["Authorization": "Bearer \(f.tokens["member"]!)"])
        #expect(await fast.read(until: { $0.contains(": connected") }))
        let title = String(repeating: "stalled beside ", count: 30)  // ~450 bytes an event
        var written = 0
        func timedChanges(_ count: Int) async throws -> [Duration] {
            var latencies: [Duration] = []
            for _ in 0..<count {
                written += 1
                let started = ContinuousClock.now
                _ = try await f.service.createTask(in: f.team, TaskDraft(title: "\(written) \(title)"), as: .id(f.member.id))
                // Read as it arrives, a millisecond at a time (RawConnection.read's 20 ms steps
                // would be most of what is measured).
                let deadline = started + .seconds(10)
                while fast.changeEvents().count < written, ContinuousClock.now < deadline {
                    if !fast.readAvailable() { try await Task.sleep(for: .milliseconds(1)) }
                }
                guard fast.changeEvents().count >= written else {
                    Issue.record("the reading subscriber got \(fast.changeEvents().count) of \(written) events")
                    break
                }
                latencies.append(ContinuousClock.now - started)
            }
            return latencies
        }
        let alone = Self.spread(try await timedChanges(50))

        // Two that read nothing: one per core's worth of the server's threads.
        var stalled: [RawConnection] = []
        for role in ["viewer", "owner"] {
            let connection = try RawConnection(port: f.server.http.port, receiveBuffer: 2_048)
            connection.get("/v1/teams/\(f.team)/events", headers: ["Authorization": "Bearer \(f.tokens[role]!)"])
            #expect(await connection.read(until: { $0.contains(": connected") }))
            stalled.append(connection)
        }
        #expect(f.server.http.openStreams == 3)
        // 200 events of ~450 bytes: far more than a stalled one's socket buffers (2 + 4 KiB)
        // and its 4 KiB queue hold, so each is cut off along the way.
        let beside = Self.spread(try await timedChanges(200))
        let deadline = ContinuousClock.now + .seconds(10)
        while f.server.http.openStreams > 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(f.server.http.openStreams == 1, "a stalled stream was never cut off")
        for connection in stalled { #expect(connection.changeEvents().count < written) }

        // A change alone takes about 50 ms here: one write after another, the hub reads the log
        // at most once per 50 ms past a burst of 4 (`ChangeLogFollower.ringPace`). The bound is
        // generous against this VM's scheduling and under the server's 300 ms of patience with
        // the stalled ones, which a delivery held up behind them would cost. (Measured: the
        // slowest 51-55 ms, alone or beside; with the streams' sends made to take turns, as a
        // fan-out that awaited each subscriber would, 301 ms, and this fails.)
        #expect(
            beside.max < .milliseconds(250),
            "alone p50 \(alone.p50) p99 \(alone.p99); beside stalled streams p50 \(beside.p50) p99 \(beside.p99) max \(beside.max)")
        await f.stop()
    }
}
