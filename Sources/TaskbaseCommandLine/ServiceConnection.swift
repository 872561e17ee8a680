import CommandLineToolkit
import Foundation
import PGStore
import TaskCore
import TaskStorePG

/// How the programs reach `TaskService`: the configuration from `DATABASE_URL` / `PG*` /
/// `.env`, a pool over it, and the machine's own day for dates.
public enum ServiceConnection {
    /// A service over the configured PostgreSQL; any failure to get there is exit 3 with one
    /// line that says where to look.
    public static func open(maxConnections: Int = 8, clock: TaskClock = localClock) async throws -> TaskService {
        let config: PGConfig
        do {
            config = try PGConfig.fromEnvironment()
        } catch {
            throw CommandFailure(
                "bad database configuration: \(ServiceExitCodes.oneLine(ErrorPrinter.message(for: error))); check DATABASE_URL, the PG* variables and .env",
                exitCode: .cannotConnect)
        }
        do {
            return TaskService(store: try await TaskStorePG.open(config: config, maxConnections: maxConnections), clock: clock)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw CommandFailure(
                "cannot connect to the database: \(ServiceExitCodes.oneLine(ErrorPrinter.message(for: error))); check DATABASE_URL, the PG* variables and .env",
                exitCode: .cannotConnect)
        }
    }

    /// Days in the machine's time zone, so `today`, `+3d` and "overdue" mean the user's day.
    public static var localClock: TaskClock {
        TaskClock(utcOffsetSeconds: TimeZone.current.secondsFromGMT()) { Date() }
    }
}
