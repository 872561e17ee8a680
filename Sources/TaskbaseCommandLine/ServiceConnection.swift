import CommandLineToolkit
import Foundation
import PGStore
import Synchronization
import TaskCore
import TaskStorePG

/// How the programs reach `TaskService`: the configuration from `DATABASE_URL` / `PG*` /
/// `.env` (and `TASKBASE_LISTEN_URL`, a direct server connection for the change feed when
/// `DATABASE_URL` goes through PgBouncer), a pool over it, and the machine's own day for dates.
public enum ServiceConnection {
    /// A service over the configured PostgreSQL; any failure to get there is exit 3 with one
    /// line that says where to look.
    /// `acquireTimeout` is how long a call waits for a free connection before failing;
    /// `limits` are the timeouts every statement runs under.
    public static func open(
        maxConnections: Int = 8, acquireTimeout: Duration = .seconds(10), clock: TaskClock = localClock, limits: PGSessionLimits
    ) async throws -> TaskService {
        var config: PGConfig
        var listenConfig: PGConfig?
        do {
            config = try PGConfig.fromEnvironment(notice: ErrorPrinter.forThisProgram.note)
            if config["application_name"] == nil { config["application_name"] = "\(ErrorPrinter.forThisProgram.program) \(getpid())" }
            if let url = ProcessInfo.processInfo.environment["TASKBASE_LISTEN_URL"], !url.isEmpty {
                var direct = try PGConfig(connectionString: url)
                direct.connectTimeout = config.connectTimeout
                listenConfig = direct
            }
        } catch {
            throw CommandFailure(
                "bad database configuration: \(ServiceExitCodes.oneLine(ErrorPrinter.message(for: error))); check DATABASE_URL, the PG* variables and .env",
                exitCode: .cannotConnect)
        }
        do {
            let store = try await PostgresTaskStore.open(
                config: config, maxConnections: maxConnections, listenConfig: listenConfig, acquireTimeout: acquireTimeout, limits: limits)
            openedTarget.withLock {
                $0 = Opened(config: config, application: config["application_name"] ?? "", limits: limits, pool: store.source as? PGPool)
            }
            return TaskService(store: store, clock: clock)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw CommandFailure(
                "cannot connect to the database: \(ServiceExitCodes.oneLine(ErrorPrinter.message(for: error))); check DATABASE_URL, the PG* variables and .env",
                exitCode: .cannotConnect)
        }
    }

    /// What `open` connected to, for `LockWaitWatch`.
    struct Opened: Sendable {
        var config: PGConfig
        var application: String
        var limits: PGSessionLimits
        var pool: PGPool?
    }

    private static let openedTarget = Mutex<Opened?>(nil)

    /// The last service `open` made, if any.
    static var opened: Opened? { openedTarget.withLock { $0 } }

    /// The connection pool of the last service `open` made, for what it tells operators
    /// (taskserve's `/metrics`).
    public static var openedPool: PGPool? { opened?.pool }

    /// Days in the machine's time zone, so `today`, `+3d` and "overdue" mean the user's day.
    public static var localClock: TaskClock {
        TaskClock(utcOffsetSeconds: TimeZone.current.secondsFromGMT()) { Date() }
    }
}
