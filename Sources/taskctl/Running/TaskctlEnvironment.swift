import CommandLineToolkit
import Foundation
import PGStore
import TaskCore
import TaskbaseCommandLine

/// What taskctl's commands run against: the service, the clock that says what day it is, and
/// where output goes. The program runs against the configured PostgreSQL; a test runs the same
/// commands in process against any `TaskService` (the memory store's, say) by binding
/// `current` around `CommandRunner.run`, as storage is injected everywhere else.
struct TaskctlEnvironment: Sendable {
    /// The service a command acts through, under the command line's timeouts; called once per
    /// command, when it needs it.
    var service: @Sendable (PGSessionLimits) async throws -> TaskService
    /// Today, for relative dates (`+3d`) and "overdue".
    var clock: TaskClock
    /// Writes data to standard output.
    var standardOutput: @Sendable ([UInt8]) throws -> Void
    /// Writes notes for people (hints, "watching ...") to standard error.
    var standardError: @Sendable (String) throws -> Void

    /// The program's own: PostgreSQL from `DATABASE_URL` / `PG*` / `.env`, the machine's day,
    /// the process's streams.
    static let live = TaskctlEnvironment(
        service: { limits in try await ServiceConnection.open(limits: limits) },
        clock: ServiceConnection.localClock,
        standardOutput: { bytes in try bytes.withUnsafeBytes { try StandardStream.standardOutput.write(bytes: $0) } },
        standardError: { text in try StandardStream.standardError.write(text) })

    /// The environment commands started from this task run against.
    @TaskLocal static var current = live
}
