import CommandLineToolkit
import Foundation
import PGStore
import TaskCore
import TaskbaseCommandLine
import TaskStorePG

/// What a command's action works with: its parsed values, the acting user, the output format,
/// and the environment it runs against (`TaskctlEnvironment`: the service, opened on demand,
/// the clock and the output streams).
struct Invocation: Sendable {
    /// The values the command line gave.
    let values: ParsedValues
    /// The service, clock and streams of this run.
    let environment: TaskctlEnvironment

    /// The action for `body`: it runs with an invocation, and whatever it throws leaves as a
    /// usage error, a cancellation, or a one-line failure with its exit code (`ServiceExitCodes`).
    static func action(_ body: @escaping @Sendable (Invocation) async throws -> Void) -> Command.Action {
        { values in
            do {
                try await LockWaitWatch.run { try await body(Invocation(values: values, environment: TaskctlEnvironment.current)) }
            } catch {
                throw ServiceExitCodes.failure(for: error, actor: ActingUser.named(in: values))
            }
        }
    }

    /// The acting user from `--as` or `TASKBASE_ACTOR`; a usage error when neither is given.
    func actor() throws(UsageError) -> UserRef {
        guard let actor = optionalActor() else {
            if values.string("as") != nil {
                // Given, but only spaces: say so, rather than ask for what was passed.
                throw UsageError(
                    "the acting user (\(values.shownName(of: "as"))) is empty: pass --as EMAIL, the email of the user this command acts as")
            }
            throw UsageError("this command acts as a user: pass --as EMAIL or set TASKBASE_ACTOR")
        }
        return actor
    }

    /// The acting user when one is named (`--as`, `TASKBASE_ACTOR`): provisioning runs with
    /// the database login's own rights without one.
    func optionalActor() -> UserRef? {
        ActingUser.named(in: values)
    }

    /// The output format the flags ask for; `--csv` only where the command declares it.
    func format(allowsCSV: Bool = false) throws(UsageError) -> OutputFormat {
        let json = values.flag("json"), csv = allowsCSV && values.flag("csv")
        if json && csv { throw UsageError("--json and --csv cannot be combined") }
        return json ? .json : csv ? .csv : .table
    }

    /// The service the command acts through (for the program: the configured PostgreSQL; any
    /// failure to get there is exit 3).
    func openService() async throws -> TaskService {
        try await environment.service(try SessionLimitOptions.limits(from: values))
    }

    /// Today by the environment's clock (the machine's time zone), the day relative dates count from.
    var today: CalendarDate {
        environment.clock.today()
    }

    /// Writes `text` to standard output.
    func write(_ text: String) throws {
        try environment.standardOutput(Array(text.utf8))
    }

    /// Writes `bytes` to standard output as they are.
    func write(bytes: [UInt8]) throws {
        try environment.standardOutput(bytes)
    }

    /// Writes a note for a person (a hint, "watching...") to standard error.
    func note(_ text: String) throws {
        try environment.standardError(text + "\n")
    }
}
