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

    /// A supervisor of two workers, with pools of 2, and the workers' process ids from its line;
    /// `adjust` changes the environment it starts with.
    func supervisor(_ arguments: [String] = [], adjust: (inout [String: String]) -> Void = { _ in }) async throws -> (ServeProcess, [pid_t]) {
        var environment = try await environment()
        adjust(&environment)
        let server = try await ServeProcess(environment: environment, arguments: ["--workers", "2", "--pool-size", "2"] + arguments)
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
        let port = server.port
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

    /// The workers share one listening socket; each closes its copy as its shutdown begins, so
    /// the socket closes though one worker is still finishing a download in its grace.
    @Test("SIGTERM while a worker finishes a download: a new connection is refused at once, the download ends, exit 0")
    func refusedWhileFinishing() async throws {
        let (server, _) = try await supervisor(["--stream-buffer", "4096", "--shutdown-grace", "30"])
        let environment = try await environment()
        let (email, team, token) = try await TaskserveProcessTests().castMember(environment)
        let port = server.port
        let imported = try await HTTPClient(baseURL: server.baseURL, token: token.token).send(
            "POST", "/v1/teams/\(team)/imports", body: Data(ExportRouteTests.file(rows: 400, assignee: email, notesBytes: 800).utf8),
            headers: ["Content-Type": "text/csv"])
        #expect(imported.status == 200, "\(imported.text)")
        // A reader that stops reading keeps its worker's export, and so its shutdown, going.
        let reader = try RawConnection(port: port, receiveBuffer: 2_048)
        reader.get("/v1/teams/\(team)/export", headers: ["Authorization": "Bearer \(token.token)"])
        #expect(await reader.read(until: { $0.contains("External ID") }))
        let stopping = Task { try await server.stop() }
        try await waitUntil("both workers to begin stopping") {
            server.log.split(separator: "\n").filter { $0.hasPrefix(#"{"stopping""#) }.count == 2
        }
        // Refused: connect fails. (When the socket stayed open, the connection was made and then
        // waited, unanswered, until the grace ran out.)
        let late = try? RawConnection(port: port)
        late?.get("/healthz")
        let answered = await late?.read(until: { !$0.isEmpty }, limit: .seconds(3)) ?? false
        #expect(late == nil || !answered, "a connection after SIGTERM was accepted: \(late?.text ?? "")")
        #expect(late == nil, "a connection after SIGTERM was accepted and left waiting")
        reader.reset()
        #expect(try await stopping.value == 0, "\(server.log.suffix(2_000))")
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

    @Test("a start warning is printed once, by the first worker, not once per worker")
    func warningsOnce() async throws {
        // Without a token key every process would warn of it: two workers printed it twice.
        let (server, _) = try await supervisor { $0["TASKBASE_TOKEN_KEY"] = nil }
        #expect(try await server.stop() == 0, "\(server.log.suffix(2_000))")
        let warnings = server.log.split(separator: "\n").filter { $0.contains("TASKBASE_TOKEN_KEY is not set") }
        #expect(warnings.count == 1, "\(server.log.suffix(2_000))")
        let listening = server.log.split(separator: "\n").filter { $0.contains(#""listening""#) }.count
        #expect(listening == 2, "both workers still serve: \(server.log.suffix(2_000))")
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
        let port = probe.port
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
            return (try? await Self.answers(port)) == true
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
        #expect(Workers.cores(status: status("3"), cpuLimit: nil) == 2)
        #expect(Workers.cores(status: status("2"), cpuLimit: nil) == 1)
        #expect(Workers.cores(status: status("ff,00000000"), cpuLimit: nil) == 8)
        #expect(Workers.cores(status: status("ff"), cpuLimit: 2) == 2)
        #expect(Workers.cores(status: status("3"), cpuLimit: 4) == 2)
        #expect(Workers.cores(status: status("ff"), cpuLimit: 0) == 1)
        #expect(try Workers.count("AUTO", option: "--workers") == Workers.cores())
        #expect(try Workers.count("3", option: "--workers") == 3)
        for refused in ["0", "-1", "two", ""] {
            let error = #expect(throws: (any Error).self) { try Workers.count(refused, option: "--workers") }
            #expect(String(describing: error).contains("--workers wants a positive number, or auto for one per core"), "\(String(describing: error))")
        }
    }

    /// A cgroup mount made of `files` (path under the root: contents) in a temporary directory.
    static func cgroupRoot(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cgroup-\(UUID().uuidString)")
        for (path, contents) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: file, atomically: false, encoding: .utf8)
        }
        return root
    }

    @Test("--workers auto reads the quota of the process's own cgroup and those above it, v2 and v1 (the root's alone missed systemd's CPUQuota=)")
    func cgroupQuotas() throws {
        func limit(_ membership: String?, _ files: [String: String]) throws -> Int? {
            let root = try Self.cgroupRoot(files)
            defer { try? FileManager.default.removeItem(at: root) }
            return Workers.cgroupCPULimit(membership: membership, root: root.path)
        }
        // v2: a systemd unit with CPUQuota=150%, nothing above it.
        let unit = "0::/system.slice/taskserve.service\n"
        let v2 = ["cpu.max": "max 100000\n", "system.slice/cpu.max": "max 100000\n"]
        #expect(try limit(unit, v2.merging(["system.slice/taskserve.service/cpu.max": "150000 100000\n"]) { $1 }) == 2)
        // A slice above it allows less: the smallest on the way up counts.
        #expect(
            try limit(
                unit, v2.merging(["system.slice/cpu.max": "100000 100000\n", "system.slice/taskserve.service/cpu.max": "300000 100000\n"]) { $1 })
                == 1)
        #expect(try limit(unit, v2.merging(["system.slice/taskserve.service/cpu.max": "max 100000\n"]) { $1 }) == nil)
        // A container shown a path its mount does not have: its own cgroup is the mount's root.
        #expect(try limit("0::/docker/4a3e\n", ["cpu.max": "250000 100000\n"]) == 3)
        // v1, as this kind of machine mounts it: the cpu controller beside others.
        let v1 = "4:memory:/docker/4a3e\n2:cpu,cpuacct:/docker/4a3e\n1:name=systemd:/\n0::/\n"
        let v1Files = ["cpu,cpuacct/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"]
        #expect(
            try limit(
                v1,
                v1Files.merging(["cpu,cpuacct/docker/4a3e/cpu.cfs_quota_us": "50000\n", "cpu,cpuacct/docker/4a3e/cpu.cfs_period_us": "100000\n"]) {
                    $1
                }) == 1)
        #expect(
            try limit(
                v1,
                v1Files.merging(["cpu,cpuacct/docker/4a3e/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/docker/4a3e/cpu.cfs_period_us": "100000\n"]) { $1 })
                == nil)
        // The controller mounted on its own (cpu and cpuacct apart), the quota at the root.
        #expect(try limit("3:cpuacct:/\n1:cpu:/\n", ["cpu/cpu.cfs_quota_us": "200000\n", "cpu/cpu.cfs_period_us": "100000\n"]) == 2)
        // Nothing to read, or nothing that says a quota: no limit.
        #expect(try limit(nil, v2) == nil)
        #expect(try limit("0::/\n", [:]) == nil)
        #expect(try limit("0::/\n", ["cpu.max": "garbage\n"]) == nil)
    }

    /// util-linux's taskset, where it is.
    static let taskset = ["/usr/bin/taskset", "/bin/taskset"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(
        "--workers auto under taskset: one core is one process, two cores two workers",
        .enabled(if: taskset != nil && Workers.cores() >= 2, "needs taskset (util-linux) and CPUs 0 and 1"))
    func autoUnderTaskset() async throws {
        let taskset = try #require(Self.taskset)
        for (cpus, expected) in [("0", 1), ("0,1", 2)] {
            try await autoWorkers(launcher: [taskset, "-c", cpus], expected: expected)
        }
    }

    /// Where a test may make a cgroup with a CPU quota of its own: the cpu controller's mount
    /// under cgroup v1, the root under v2 when it hands the cpu controller down; as root only.
    static let quotaCgroupParent: String? = {
        guard geteuid() == 0 else { return nil }
        let manager = FileManager.default
        if manager.fileExists(atPath: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), manager.isWritableFile(atPath: "/sys/fs/cgroup/cpu/cgroup.procs") {
            return "/sys/fs/cgroup/cpu"
        }
        let handedDown = (try? String(contentsOfFile: "/sys/fs/cgroup/cgroup.subtree_control", encoding: .utf8)) ?? ""
        return handedDown.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("cpu") ? "/sys/fs/cgroup" : nil
    }()

    @Test(
        "--workers auto in a cgroup with one CPU's time, on two cores or more: one process",
        .enabled(if: quotaCgroupParent != nil && Workers.cores() >= 2, "needs root, a cgroup cpu controller to write, and 2 CPUs"))
    func autoUnderQuota() async throws {
        let parent = try #require(Self.quotaCgroupParent)
        let group = parent + "/taskbase-workers-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: false)
        defer {
            // A group is removed once empty: whatever a failure left in it is killed first.
            for _ in 0..<100 where rmdir(group) != 0 {
                let pids = ((try? String(contentsOfFile: group + "/cgroup.procs", encoding: .utf8)) ?? "").split(separator: "\n")
                for pid in pids { if let pid = pid_t(pid) { kill(pid, SIGKILL) } }
                usleep(50_000)
            }
        }
        if parent.hasSuffix("/cpu") {
            try "100000\n".write(toFile: group + "/cpu.cfs_period_us", atomically: false, encoding: .utf8)
            try "100000\n".write(toFile: group + "/cpu.cfs_quota_us", atomically: false, encoding: .utf8)
        } else {
            try "100000 100000\n".write(toFile: group + "/cpu.max", atomically: false, encoding: .utf8)
        }
        // The shell moves itself into the group, then becomes taskserve: it starts there.
        try await autoWorkers(launcher: ["/bin/sh", "-c", "echo $$ > \(group)/cgroup.procs && exec \"$0\" \"$@\""], expected: 1)
    }

    /// Runs `taskserve --workers auto` through `launcher` (a command that ends by running the
    /// program after it) and expects `expected` processes to listen, then a clean stop.
    func autoWorkers(launcher: [String], expected: Int) async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("workers-auto-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher[0])
        process.arguments =
            Array(launcher.dropFirst()) + [BuiltProgram.url("taskserve").path, "--listen", "127.0.0.1:0", "--workers", "auto", "--pool-size", "2"]
        process.environment = try await environment()
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let text = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        try await waitUntil("taskserve to listen under \(launcher)", limit: .seconds(60)) {
            text().split(separator: "\n").filter { $0.contains(#""listening""#) }.count == expected
        }
        if expected == 1 {
            #expect(!text().contains(#""supervising""#), "one core: no supervisor, \(text())")
        } else {
            #expect(text().contains(#""supervising":"http://127.0.0.1:"#) && text().contains(#""workers":\#(expected)"#), "\(text())")
        }
        kill(process.processIdentifier, SIGTERM)
        try await waitUntil("taskserve to exit", limit: .seconds(45)) { !process.isRunning }
        #expect(process.terminationStatus == 0)
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
