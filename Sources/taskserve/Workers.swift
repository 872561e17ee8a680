import CommandLineToolkit
import Foundation
import Glibc
import PGStore
import TaskbaseServer

/// `taskserve --workers N`: one supervisor process and N workers, each a whole taskserve with
/// its own I/O thread, database pool and LISTEN connection, serving one listening socket.
///
/// A taskserve process answers its requests on one I/O thread, which keeps a request, its
/// statements' replies and its answer on one core; a second core is then used by PostgreSQL
/// and the clients, and sits idle whenever they wait on that thread. N workers on N cores keep
/// every core busy, as uvicorn's or gunicorn's workers do. The supervisor binds the address
/// itself (so a taken port fails once, clearly, and port 0 is one port for all), hands the
/// socket down as descriptor 3, and holds the write end of a pipe whose read end each worker
/// has as descriptor 4: the lifeline.
///
/// - A signal to the supervisor (or its death, even by SIGKILL) closes the lifeline, and each
///   worker stops gracefully, as on SIGTERM. A signal a worker gets itself as well (Ctrl-C in
///   a terminal reaches the whole process group; a service manager may signal every process)
///   stops it once: the lifeline never counts as a second signal.
/// - A worker that exits while the others serve stops them all: the supervisor exits with the
///   worker's code, for the service manager to restart the whole, rather than serve on with
///   fewer cores and say nothing.
/// - Everything a process holds for itself is per worker: the pool (`--pool-size` each), the
///   rate limits, the metrics. Idempotency keys and token revocations are the database's, so
///   workers agree on them as separate servers do.
enum Workers {
    /// The variable a worker finds its number in, 1 to N; set by the supervisor only.
    static let variable = "TASKBASE_WORKER"
    /// The listening socket, as a worker inherits it.
    static let socketDescriptor: Int32 = 3
    /// The read end of the lifeline, as a worker inherits it.
    static let lifelineDescriptor: Int32 = 4

    /// The cores this process may use, for `--workers auto`: the CPUs its affinity mask allows
    /// (`Cpus_allowed` in /proc/self/status, as `taskset` or a container's cpuset sets it),
    /// fewer when a cgroup CPU quota allows fewer whole CPUs' time (`cgroupCPULimit`); at least 1.
    static func cores(
        status: String? = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        cpuLimit: Int? = cgroupCPULimit(membership: try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8))
    ) -> Int {
        var count = ProcessInfo.processInfo.activeProcessorCount
        if let line = status?.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) {
            let mask = line.dropFirst("Cpus_allowed:".count).filter { $0.isHexDigit }
            let allowed = mask.reduce(0) { $0 + (Int(String($1), radix: 16) ?? 0).nonzeroBitCount }
            if allowed > 0 { count = allowed }
        }
        if let cpuLimit { count = min(count, cpuLimit) }
        return max(1, count)
    }

    /// The whole CPUs' time the cgroup quotas over this process allow, rounded up (one and a
    /// half CPUs: 2); nil when none limits it. `membership` is /proc/self/cgroup, `root` where
    /// the hierarchies are mounted. Read in the process's own cgroup and in each above it to
    /// the root, the smallest counting (a systemd unit's `CPUQuota=` sits on the unit's cgroup,
    /// `docker run --cpus` on the container's):
    /// - cgroup v2 (the line `0::PATH`): `cpu.max`, `150000 100000`; `max 100000` is no quota.
    /// - cgroup v1 (a line naming the `cpu` controller): `cpu.cfs_quota_us` over
    ///   `cpu.cfs_period_us`, under that controller's mount; a quota of -1 is none.
    /// A path that is not under the mount (a container shown the host's path, its own cgroup
    /// mounted as the root) is read at the mount's root.
    static func cgroupCPULimit(membership: String?, root: String = "/sys/fs/cgroup") -> Int? {
        func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
        func whole(_ quota: Substring?, _ period: Substring?) -> Int? {
            guard let quota = quota.flatMap({ Int($0) }), let period = period.flatMap({ Int($0) }), quota > 0, period > 0 else { return nil }
            return (quota + period - 1) / period
        }
        let manager = FileManager.default
        var limit: Int?
        for line in (membership ?? "").split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ",")
            let base: String
            let quota: (String) -> Int?
            if fields[0] == "0" && controllers.isEmpty {
                base = root
                quota = { directory in
                    let values = read(directory + "/cpu.max")?.split(whereSeparator: { $0 == " " || $0 == "\n" }) ?? []
                    return values.count == 2 ? whole(values[0], values[1]) : nil
                }
            } else if controllers.contains("cpu") {
                let mounts = [String(fields[1]), "cpu", "cpu,cpuacct", "cpuacct,cpu"].map { root + "/" + $0 }
                guard let mount = mounts.first(where: { manager.fileExists(atPath: $0 + "/cpu.cfs_quota_us") }) else { continue }
                base = mount
                quota = { directory in
                    let value = { (name: String) in read(directory + "/" + name)?.split(separator: "\n").first }
                    return whole(value("cpu.cfs_quota_us"), value("cpu.cfs_period_us"))
                }
            } else {
                continue
            }
            let path = fields[2].split(separator: "/").filter { $0 != "." && $0 != ".." }
            /// The cgroup `depth` levels below the mount's root on the process's path.
            func directory(_ depth: Int) -> String { ([base] + path.prefix(depth).map(String.init)).joined(separator: "/") }
            var depth = manager.fileExists(atPath: directory(path.count)) ? path.count : 0
            while depth >= 0 {
                if let found = quota(directory(depth)) { limit = min(limit ?? found, found) }
                depth -= 1
            }
        }
        return limit
    }

    /// `--workers`: a positive number, or `auto` for one per core (`cores()`).
    static func count(_ text: String, option: String) throws -> Int {
        if text.lowercased() == "auto" { return cores() }
        guard let count = Int(text), count > 0 else { throw UsageError("\(option) wants a positive number, or auto for one per core") }
        return count
    }

    /// This process's number when a supervisor started it; nil for a process started by hand.
    static func number(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Int? {
        environment[variable].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// In a worker: the inherited socket, checked to be a listening one, and its port. A worker
    /// variable without the descriptors (set by hand) is a usage error.
    static func inheritedSocket() throws -> (socket: Int32, port: UInt16) {
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socketDescriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening != 0,
            let port = boundPort(socketDescriptor)
        else {
            throw UsageError("\(variable) is set but descriptor \(socketDescriptor) is no listening socket: it is taskserve --workers' own; unset it")
        }
        return (socketDescriptor, port)
    }

    /// In a worker: stops the program as SIGTERM would once the supervisor closes the lifeline
    /// or dies. A blocking read on a thread of its own, which nothing else shares. Neither
    /// inherited descriptor passes on to a program this one might start.
    static func watchLifeline() {
        for descriptor in [socketDescriptor, lifelineDescriptor] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(lifelineDescriptor, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                if count == 1 { continue }
                break
            }
            CommandRunner.requestStop()
        }
    }

    /// The port a bound socket has.
    static func boundPort(_ socket: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard named == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default:
            return nil
        }
    }

    /// A socket bound to `host:port` and listening, non-blocking, closed on exec (the workers get
    /// it through `spawn`'s own copy). An IPv6 address serves IPv6 only, as a single server does;
    /// `sharesPort` (`--reuse-port`) lets other processes listen on the port too.
    static func listen(host: String, port: UInt16, sharesPort: Bool) throws -> (socket: Int32, port: UInt16) {
        let family = host.contains(":") ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw CommandFailure("cannot make a socket: \(String(cString: strerror(errno)))", exitCode: .cannotConnect) }
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, size)
        if sharesPort { _ = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, size) }
        if family == AF_INET6 { _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, size) }
        /// `bind` with an address of either family.
        func bound<Address>(to address: Address) -> Bool {
            withUnsafePointer(to: address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<Address>.size)) == 0 }
            }
        }
        let isBound: Bool
        if family == AF_INET {
            var address = sockaddr_in()
            (address.sin_family, address.sin_port) = (sa_family_t(AF_INET), port.bigEndian)
            _ = inet_pton(AF_INET, host, &address.sin_addr)
            isBound = bound(to: address)
        } else {
            var address = sockaddr_in6()
            (address.sin6_family, address.sin6_port) = (sa_family_t(AF_INET6), port.bigEndian)
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            isBound = bound(to: address)
        }
        guard isBound, Glibc.listen(fd, SOMAXCONN) == 0, let chosen = boundPort(fd) else {
            let cause = String(cString: strerror(errno))
            close(fd)
            throw CommandFailure(
                "cannot listen on \(HTTPServer.authority(host, port)): \(cause); choose another with --listen or TASKBASE_HTTP_ADDR",
                exitCode: .cannotConnect)
        }
        return (fd, chosen)
    }

    /// Runs `count` workers, this program with the same arguments, on `socket`, until a signal
    /// stops this task or a worker exits; then stops the rest and waits for them (up to
    /// `grace` and 10 s more, then SIGKILL). Returns when all have exited; throws, with the
    /// first failed worker's exit code, when one failed.
    static func supervise(count: Int, socket: Int32, grace: Duration, say: @escaping @Sendable (String) -> Void) async throws {
        var lifeline: [Int32] = [-1, -1]
        guard pipe(&lifeline) == 0 else {
            throw CommandFailure("cannot make the workers' lifeline: \(String(cString: strerror(errno)))")
        }
        // Neither end goes to a worker as it is (it gets a copy of the read end as 4): a worker
        // holding the write end would never see the lifeline close.
        for end in lifeline { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var workers: [(number: Int, pid: pid_t)] = []
        for number in 1...count {
            do {
                workers.append((number, try spawn(program, number: number, socket: socket, lifeline: lifeline[0])))
            } catch {
                close(lifeline[1])
                _ = await wait(for: workers, until: .now + .seconds(30))
                throw error
            }
        }
        close(lifeline[0])
        close(socket)
        say(#"{"workers":\#(count),"pids":[\#(workers.map { String($0.pid) }.joined(separator: ","))]}"# + "\n")
        // Serving: a signal cancels this task; a worker that exits ends it too.
        var failed: (number: Int, pid: pid_t, ending: Ending)?
        while !Task.isCancelled && failed == nil {
            for worker in workers {
                if case .ended(let ending) = reap(worker.pid) {
                    failed = (worker.number, worker.pid, ending)
                    break
                }
            }
            if failed == nil { try? await Task.sleep(for: .milliseconds(100)) }
        }
        close(lifeline[1])
        let rest = workers.filter { $0.pid != failed?.pid }
        let endings = await withCancellationShield { await wait(for: rest, until: .now + grace + .seconds(10)) }
        if let failed {
            let why = failed.ending.signal == nil ? ": its own lines above say why" : ""
            throw CommandFailure(
                "worker \(failed.number) (pid \(failed.pid)) \(failed.ending); the others were stopped\(why)",
                exitCode: failed.ending.exitCode)
        }
        if let (number, ending) = endings.first(where: { !$0.ending.isClean }) {
            throw CommandFailure("worker \(number) \(ending) while stopping", exitCode: ending.exitCode)
        }
    }

    /// How a worker ended: `waitpid`'s status word, read.
    struct Ending: CustomStringConvertible {
        let status: Int32
        /// The signal that killed it; nil when it exited.
        var signal: Int32? { status & 0x7f == 0 ? nil : status & 0x7f }
        /// Its exit code, when it exited.
        var code: Int32 { (status >> 8) & 0xff }
        var isClean: Bool { signal == nil && code == 0 }
        /// "exited with 3", "was killed by signal 9".
        var description: String { signal.map { "was killed by signal \($0)" } ?? "exited with \(code)" }
        /// The code the supervisor exits with for it: the worker's own when it is one of the
        /// programs' codes, else 1.
        var exitCode: ExitCode {
            guard signal == nil, let own = ExitCode(rawValue: code), own != .success else { return .failure }
            return own
        }
    }

    /// What `waitpid` says of a child, reaping it if it has ended.
    private enum Reaped {
        case running
        case ended(Ending)
        /// No child of this process (already reaped): nothing will come of waiting for it.
        case gone
    }

    private static func reap(_ pid: pid_t) -> Reaped {
        var status: Int32 = 0
        let waited = waitpid(pid, &status, WNOHANG)
        if waited == pid { return .ended(Ending(status: status)) }
        return waited < 0 && errno == ECHILD ? .gone : .running
    }

    /// Waits for each of `workers` to exit, polling; past `deadline`, kills those left.
    private static func wait(
        for workers: [(number: Int, pid: pid_t)], until deadline: ContinuousClock.Instant
    ) async -> [(number: Int, ending: Ending)] {
        var left = workers
        var endings: [(number: Int, ending: Ending)] = []
        while !left.isEmpty {
            left.removeAll { worker in
                switch reap(worker.pid) {
                case .running: return false
                case .ended(let ending):
                    endings.append((worker.number, ending))
                    return true
                case .gone: return true
                }
            }
            if left.isEmpty { break }
            if ContinuousClock.now >= deadline {
                for worker in left { kill(worker.pid, SIGKILL) }
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return endings
    }

    /// Starts worker `number`: `program` with this process's arguments and environment, the
    /// worker variable set, `socket` as descriptor 3 and `lifeline` as 4, no signal blocked.
    private static func spawn(_ program: String, number: Int, socket: Int32, lifeline: Int32) throws -> pid_t {
        // Sources above 4, so that neither dup2 maps a descriptor onto itself (which would keep
        // its close-on-exec flag).
        let source = (socket: fcntl(socket, F_DUPFD_CLOEXEC, 10), lifeline: fcntl(lifeline, F_DUPFD_CLOEXEC, 10))
        defer {
            close(source.socket)
            close(source.lifeline)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, source.socket, socketDescriptor)
        posix_spawn_file_actions_adddup2(&actions, source.lifeline, lifelineDescriptor)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = String(number)
        let arguments = [program] + CommandLine.arguments.dropFirst()
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let failure = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard failure == 0 else {
            throw CommandFailure("cannot start worker \(number) (\(program)): \(String(cString: strerror(failure)))")
        }
        return pid
    }
}
