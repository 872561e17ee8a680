import Foundation
import Glibc
import Synchronization
import TaskbaseTestSupport
import Testing
@testable import PGStore

/// The reactor's thread as an event loop for others: an executor for the tasks that prefer
/// it, and sources of their own attached to its epoll (taskserve's HTTP daemon).
@Suite("The I/O thread as an event loop")
struct IOReactorLoopTests {
    @Test("a task that prefers the reactor runs on its thread, before and after each statement, and its statements work")
    func tasksRunOnTheThread() async throws {
        let pool = PGPool(config: try TestDatabase.config(), options: PGPoolOptions(maxConnections: 2))
        defer { Task { await pool.shutdown() } }
        #expect(!IOReactor.shared.isCurrentThread)
        let seen = try await Task(executorPreference: IOReactor.shared) { () async throws -> [Bool] in
            var onThread = [IOReactor.shared.isCurrentThread]
            for number in 1...20 {
                let rows = try await pool.withConnection { try await $0.query("SELECT \(number)::int + 1") }
                #expect(try rows[0].decode(Int.self, at: 0) == number + 1)
                onThread.append(IOReactor.shared.isCurrentThread)
                let results = try await pool.pipeline(["SELECT 1", "SELECT 2"])
                #expect(results.count == 2)
                onThread.append(IOReactor.shared.isCurrentThread)
            }
            return onThread
        }.value
        #expect(seen.count == 41)
        #expect(seen.allSatisfy { $0 }, "every step of the task ran on the reactor's thread")
    }

    @Test("many tasks on the thread share a small pool, and none is lost")
    func manyTasks() async throws {
        let pool = PGPool(config: try TestDatabase.config(), options: PGPoolOptions(maxConnections: 2))
        defer { Task { await pool.shutdown() } }
        let sums = try await withThrowingTaskGroup(of: Int.self) { group in
            for client in 0..<64 {
                group.addTask(executorPreference: IOReactor.shared) {
                    var sum = 0
                    for step in 0..<10 {
                        let query: PGQuery = "SELECT \(client * 100 + step)::int"
                        let results = try await pool.pipeline([query])
                        sum += try results[0].get()[0].decode(Int.self, at: 0)
                    }
                    return sum
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(sums.count == 64)
        // Client c adds c * 100 + step for steps 0 to 9: c * 1,000 + 45.
        let expected: Int = (0..<64).map { (client: Int) -> Int in client * 1_000 + 45 }.reduce(0, +)
        #expect(sums.reduce(0, +) == expected)
    }

    @Test("an attached source runs on the thread when readable, when poked, when due; detached, never again")
    func attachedSources() async throws {
        let pipe = TestPipe()
        let calls = Mutex<[Bool]>([])
        let due = Mutex<Int32?>(nil)
        let attached = IOReactor.shared.attach(
            fd: pipe.read,
            ready: {
                pipe.available()
                calls.withLock { $0.append(IOReactor.shared.isCurrentThread) }
            }, nextDue: { due.withLock { $0 } })
        #expect(attached)
        func waitForCall(_ count: Int, _ what: String) async throws {
            try await waitUntil(what, limit: .seconds(10), every: .milliseconds(2)) { calls.withLock { $0.count } >= count }
        }
        pipe.ring()
        try await waitForCall(1, "readable")
        IOReactor.shared.poke(fd: pipe.read)
        try await waitForCall(2, "poked")
        due.withLock { $0 = 20 }
        IOReactor.shared.poke(fd: pipe.read)  // asked again for its deadline on the next turn
        try await waitForCall(4, "due after 20 ms, without activity")
        due.withLock { $0 = nil }
        await IOReactor.shared.detach(fd: pipe.read)
        let before = calls.withLock { $0.count }
        pipe.ring()
        IOReactor.shared.poke(fd: pipe.read)
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.withLock { $0.count } == before, "a detached source is never called")
        #expect(calls.withLock { $0 }.allSatisfy { $0 }, "sources run on the reactor's thread")
    }

    @Test("a poke from another thread is never lost, however it falls against the thread's turn")
    func pokesFromAnotherThread() async throws {
        let pipe = TestPipe()
        let calls = Atomic<Int>(0)
        let attached = IOReactor.shared.attach(fd: pipe.read, ready: { calls.add(1, ordering: .sequentiallyConsistent) }, nextDue: { nil })
        #expect(attached)
        // Each poke follows the previous call at once, so that many land while the thread
        // finishes its turn and decides how long to sleep. A lost one is never served (the
        // source has no deadline, and run alone nothing else stirs the thread): the limit only bounds the
        // wait on a loaded machine. Before the fix, runs lost poke 34, 104 and 775.
        for poke in 1...5_000 {
            let sent = ContinuousClock.now
            IOReactor.shared.poke(fd: pipe.read)
            while calls.load(ordering: .sequentiallyConsistent) < poke, ContinuousClock.now - sent < .seconds(10) {
                await Task.yield()
            }
            guard calls.load(ordering: .sequentiallyConsistent) >= poke else {
                Issue.record("poke \(poke) was not served within 10 s")
                break
            }
        }
        await IOReactor.shared.detach(fd: pipe.read)
    }

    @Test("perform runs on the thread and returns its value")
    func perform() async {
        let (onThread, value) = await IOReactor.shared.perform { (IOReactor.shared.isCurrentThread, 42) }
        #expect(onThread)
        #expect(value == 42)
    }
}
