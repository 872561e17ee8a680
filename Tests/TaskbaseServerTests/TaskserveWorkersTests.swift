import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TaskbaseTestSupport
@testable import taskserve
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `taskserve --workers N`: a supervisor and its workers as processes, against PostgreSQL.
@Suite("taskserve --workers", .serialized, .timeLimit(.minutes(3)))
struct TaskserveWorkersTests {
    func environment() async throws -> [String: String] {
        var environment = TestDatabases.childEnvironment(try await TestDatabases.shared.value)
        environment["TASKBASE_TOKEN_KEY"] = "workers test key"
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        return environment
    }

    /// A supervisor of two workers, with pools of 2, and the workers' process ids from its line.
    func supervisor(_ arguments: [String] = []) async throws -> (ServeProcess, [pid_t]) {
        let server = try await ServeProcess(environment: try await environment(), arguments: ["--workers", "2", "--pool-size", "2"] + arguments)
        var pids: [pid_t] = []
        // Three processes starting, each connecting: on two cores under the whole suite, slow.
        try await waitUntil("both workers to listen", limit: .seconds(60)) {
            let lines = server.log.split(separator: "\n")
            guard lines.filter({ $0.contains(#""listening""#) && $0.contains(#""worker""#) }).count == 2,
                let line = lines.first(where: { $0.hasPrefix(#"{"workers""#) }),
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else { return false }
            pids = (object["pids"] as? [Int] ?? []).map { pid_t($0) }
            return true
        }
        #expect(pids.count == 2)
        return (server, pids)
    }

    /// Whether `pid` has exited (gone, or a zombie no one has reaped yet).
    static func exited(_ pid: pid_t) -> Bool {
        (ServeProcess.state(ofStat: "/proc/\(pid)/stat") ?? "Z") == "Z"
    }

    /// One GET /healthz on a new connection, answered 200.
    static func answers(_ port: UInt16) async throws -> Bool {
        let connection = try RawConnection(port: port)
        connection.get("/healthz")
        return await connection.read(until: { $0.hasPrefix("HTTP/1.1 200") && $0.hasSuffix("\n") })
    }

    @Test("two workers serve one port, each on its own; SIGTERM to the supervisor stops both, exit 0")
    func serveAndStop() async throws {
        let (server, pids) = try await supervisor()
        let port = try #require(URL(string: server.baseURL)?.port.map { UInt16($0) })
        // Each worker alone, the other paused: both take connections from the one socket.
        for (paused, serving) in [(pids[0], pids[1]), (pids[1], pids[0])] {
            kill(paused, SIGSTOP)
            // Until every thread of it has stopped, it may still take a connection and then hold it.
            try await waitUntil("worker \(paused) to stop", every: .milliseconds(5)) { ServeProcess.isStopped(paused) }
            for _ in 0..<5 { #expect(try await Self.answers(port), "worker \(serving) alone") }
            kill(paused, SIGCONT)
        }
        #expect(try await server.stop() == 0, "\(server.log.suffix(2_000))")
        #expect(pids.allSatisfy(Self.exited))
        let lines = server.log.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix(#"{"stopped""#) }.count == 3, "two workers and the supervisor: \(server.log.suffix(2_000))")
    }

    @Test("SIGTERM to every process at once, as a service manager sends it, stops each worker once and gracefully")
    func signalToAll() async throws {
        let (server, pids) = try await supervisor()
        for pid in pids { kill(pid, SIGTERM) }
        // The supervisor then closes the lifeline too: that must not count as a second signal,
        // which would make the workers exit at once with 143.
        #expect(try await server.stop() == 0, "\(server.log.suffix(2_000))")
        // Each worker's own "stopped" line: its shutdown ran to the end, not cut short.
        #expect(server.log.split(separator: "\n").filter { $0.hasPrefix(#"{"stopped""#) }.count == 3, "\(server.log.suffix(2_000))")
    }

    @Test("a supervisor killed outright leaves no worker behind: the lifeline closes and each stops")
    func supervisorKilled() async throws {
        let (server, pids) = try await supervisor()
        kill(server.process.processIdentifier, SIGKILL)
        try await waitUntil("the workers to stop", limit: .seconds(30)) { pids.allSatisfy(Self.exited) }
        #expect(server.log.split(separator: "\n").filter { $0.hasPrefix(#"{"stopped""#) }.count == 2, "\(server.log.suffix(2_000))")
    }

    @Test("a worker that dies stops the other, and the supervisor exits 1 naming it")
    func workerDies() async throws {
        let (server, pids) = try await supervisor()
        kill(pids[0], SIGKILL)
        try await waitUntil("the supervisor to exit", limit: .seconds(45)) { !server.process.isRunning }
        #expect(server.process.terminationStatus == 1)
        #expect(server.log.contains("worker 1 (pid \(pids[0])) was killed by signal 9; the others were stopped"), "\(server.log.suffix(2_000))")
        #expect(Self.exited(pids[1]))
    }

    @Test("a supervisor whose stderr is closed still serves and stops cleanly (it once crashed writing its first line)")
    func closedStandardError() async throws {
        // A free port, found by binding one and letting it go: without stderr there is no line to read it from.
        let probe = try await ServeProcess(environment: try await environment())
        let port = try #require(URL(string: probe.baseURL)?.port)
        #expect(try await probe.stop() == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", #"exec "$0" --listen 127.0.0.1:"$1" --workers 2 --pool-size 2 2>&-"#, BuiltProgram.url("taskserve").path, String(port),
        ]
        process.environment = try await environment()
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        try await waitUntil("the workers to answer", limit: .seconds(60)) {
            guard process.isRunning else { return true }
            return (try? await Self.answers(UInt16(port))) == true
        }
        #expect(process.isRunning, "exited with \(process.terminationStatus)")
        kill(process.processIdentifier, SIGTERM)
        try await waitUntil("the supervisor to exit", limit: .seconds(45)) { !process.isRunning }
        #expect(process.terminationStatus == 0)
    }

    @Test("workers that cannot reach the database: the supervisor exits 3, as one process would, naming a worker")
    func unreachableDatabase() async throws {
        let run = try await TaskserveProcessTests.offline(["--listen", "127.0.0.1:0", "--workers", "2"])
        #expect(run.exitCode == 3, "\(run.standardError)")
        #expect(run.standardError.contains("exited with 3; the others were stopped"), "\(run.standardError)")
    }

    @Test("with --metrics-listen each worker serves its own counters: worker K on the port + K - 1, or a free port each with 0")
    func metricsPerWorker() async throws {
        /// The metrics URLs of the workers' listening lines, by worker number.
        func metricsURLs(_ server: ServeProcess) throws -> [Int: String] {
            var urls: [Int: String] = [:]
            for line in server.log.split(separator: "\n") where line.contains(#""listening""#) {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                if let worker = object?["worker"] as? Int, let url = object?["metrics"] as? String { urls[worker] = url }
            }
            return urls
        }
        let (anyPorts, _) = try await supervisor(["--metrics-listen", "127.0.0.1:0"])
        let chosen = try metricsURLs(anyPorts)
        #expect(chosen.count == 2 && Set(chosen.values).count == 2, "\(chosen)")
        for url in chosen.values {
            let (body, response) = try await URLSession.shared.data(from: try #require(URL(string: url)))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self).contains("taskbase_db_pool_connections"))
        }
        #expect(try await anyPorts.stop() == 0)
        // A port given: the first worker takes it, the second the next one (a few tries, should
        // another program hold one of the two).
        var placed: [Int: String] = [:]
        for _ in 1...5 where placed.isEmpty {
            let port = Int.random(in: 40_000..<60_000)
            guard let (server, _) = try? await supervisor(["--metrics-listen", "127.0.0.1:\(port)"]) else { continue }
            placed = try metricsURLs(server)
            #expect(placed == [1: "http://127.0.0.1:\(port)/metrics", 2: "http://127.0.0.1:\(port + 1)/metrics"])
            #expect(try await server.stop() == 0)
        }
        #expect(!placed.isEmpty)
    }

    @Test("--workers auto: the CPUs the affinity mask allows, fewer under a cgroup quota of whole CPUs' time, at least 1")
    func autoCount() throws {
        let status = { (mask: String) in "Name:\ttaskserve\nCpus_allowed:\t\(mask)\nCpus_allowed_list:\t-\n" }
        #expect(Workers.cores(status: status("3"), quota: "max 100000\n") == 2)
        #expect(Workers.cores(status: status("2"), quota: nil) == 1)
        #expect(Workers.cores(status: status("ff,00000000"), quota: "max 100000\n") == 8)
        #expect(Workers.cores(status: status("ff"), quota: "150000 100000\n") == 2)
        #expect(Workers.cores(status: status("ff"), quota: "50000 100000\n") == 1)
        #expect(Workers.cores(status: status("f"), quota: "800000 100000\n") == 4)
        #expect(try Workers.count("AUTO", option: "--workers") == Workers.cores())
        #expect(try Workers.count("3", option: "--workers") == 3)
        for refused in ["0", "-1", "two", ""] {
            let error = #expect(throws: (any Error).self) { try Workers.count(refused, option: "--workers") }
            #expect(String(describing: error).contains("--workers wants a positive number, or auto for one per core"), "\(String(describing: error))")
        }
    }

    /// util-linux's taskset, where it is.
    static let taskset = ["/usr/bin/taskset", "/bin/taskset"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(
        "--workers auto under taskset: one core is one process, two cores two workers",
        .enabled(if: taskset != nil && Workers.cores() >= 2, "needs taskset (util-linux) and CPUs 0 and 1"))
    func autoUnderTaskset() async throws {
        let taskset = try #require(Self.taskset)
        for (cpus, expected) in [("0", 1), ("0,1", 2)] {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("workers-auto-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: log) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: taskset)
            process.arguments = ["-c", cpus, BuiltProgram.url("taskserve").path, "--listen", "127.0.0.1:0", "--workers", "auto", "--pool-size", "2"]
            process.environment = try await environment()
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            let text = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
            try await waitUntil("taskserve to listen on \(cpus)", limit: .seconds(60)) {
                text().split(separator: "\n").filter { $0.contains(#""listening""#) }.count == expected
            }
            if expected == 1 {
                #expect(!text().contains(#""supervising""#), "one core: no supervisor, \(text())")
            } else {
                #expect(text().contains(#""supervising":"http://127.0.0.1:"#) && text().contains(#""workers":2"#), "\(text())")
            }
            kill(process.processIdentifier, SIGTERM)
            try await waitUntil("taskserve to exit", limit: .seconds(45)) { !process.isRunning }
            #expect(process.terminationStatus == 0)
        }
    }

    @Test("what --workers refuses: 0, a metrics port with no room for the next, a taken port, the worker variable set by hand")
    func refusals() async throws {
        let environment = try await environment()
        let program = BuiltProgram.url("taskserve")
        let zero = try await BuiltProgram.run(program, arguments: ["--listen", "127.0.0.1:0", "--workers", "0"], environment: environment)
        #expect(zero.exitCode == 2)
        #expect(zero.standardError.contains("--workers wants a positive number, or auto for one per core"))
        let metrics = try await BuiltProgram.run(
            program, arguments: ["--listen", "127.0.0.1:0", "--workers", "2", "--metrics-listen", "127.0.0.1:65535"], environment: environment)
        #expect(metrics.exitCode == 2)
        #expect(metrics.standardError.contains("port 65535 leaves no room for 2 workers, each on the next port"), "\(metrics.standardError)")
        // The supervisor binds the address itself: a taken port fails once, before any worker.
        let (holder, _) = try await supervisor()
        let taken = try await BuiltProgram.run(
            program, arguments: ["--listen", holder.baseURL.replacingOccurrences(of: "http://", with: ""), "--workers", "2"], environment: environment
        )
        #expect(taken.exitCode == 3)
        #expect(taken.standardError.contains("cannot listen on 127.0.0.1:"), "\(taken.standardError)")
        #expect(!taken.standardError.contains(#""workers""#))
        #expect(try await holder.stop() == 0)
        var byHand = environment
        byHand["TASKBASE_WORKER"] = "1"
        let stray = try await BuiltProgram.run(program, arguments: ["--listen", "127.0.0.1:0"], environment: byHand)
        #expect(stray.exitCode == 2)
        #expect(stray.standardError.contains("TASKBASE_WORKER is set but descriptor 3 is no listening socket"), "\(stray.standardError)")
    }
}
