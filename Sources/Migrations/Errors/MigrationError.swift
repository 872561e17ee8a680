import PGStore

/// A run that stopped. Each case keeps its facts; `description` is the one line for people.
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// A statement of a migration failed; its transaction (and history row) rolled back.
    case statementFailed(MigrationStatementFailure)
    /// A migration kept hitting its lock timeout; every try rolled back (a concurrent index
    /// build that could not be cleaned up is named in `leftoverIndex`).
    case lockTimeout(file: String, attempts: Int, lockTimeout: Duration, blocker: LockBlocker?, leftoverIndex: String?)
    /// Another runner held the migration lock for longer than we were willing to wait.
    case migrationLockBusy(waited: Duration, holder: String?)
    /// `up` found hazards in pending files that they do not allow with `-- lint:allow`.
    case lintRefused([LintFinding])
    /// `down` was asked to roll back migrations that have no down section.
    case notReversible([String])
    /// `down` on a database with migrations newer than the folder (a newer release's): their
    /// down sections are in that release.
    case aheadOfFolder(newest: Int64, folder: Int64?)
    /// A version named on the command line that no migration has.
    case unknownVersion(Int64, known: String)
    /// `baseline` on a database whose history is not empty.
    case historyNotEmpty(currentVersion: Int64)
    /// A concurrent build of a migration's index (a killed run's) was still running after `waited`.
    case indexBuildStillRunning(file: String, index: String, pid: Int32, waited: Duration)

    /// One line (lint refusals: one line per finding).
    public var description: String {
        switch self {
        case .statementFailed(let failure):
            return failure.description
        case let .lockTimeout(file, attempts, lockTimeout, blocker, leftoverIndex):
            let who = blocker.map { "; blocked by \($0)" } ?? "; the blocking session could not be identified"
            let outcome =
                leftoverIndex.map {
                    "the INVALID index \($0) is left behind (it serves no query); run up again when the table is quieter, "
                        + "which drops and rebuilds it (or drop it yourself: DROP INDEX CONCURRENTLY \($0))"
                }
                ?? "nothing was applied — end that session or retry when the table is quieter"
            return "\(file): could not get its locks within lock_timeout \(lockTimeout.displayText) in \(attempts) tries\(who); \(outcome)"
        case let .migrationLockBusy(waited, holder):
            let who = holder.map { " (held by \($0))" } ?? ""
            return "another taskmigrate held the migration lock for \(waited.displayText)\(who); try again later or raise --lock-wait"
        case .lintRefused(let findings):
            return
                (findings.map(\.description) + ["refusing to apply: fix these or add -- lint:allow RULE to the file (see taskmigrate lint --help)"])
                .joined(separator: "\n")
        case .notReversible(let paths):
            return "cannot roll back \(paths.joined(separator: ", ")): no -- migrate:down section; nothing was rolled back"
        case let .aheadOfFolder(newest, folder):
            return "the database is at version \(newest), newer than this folder's newest migration (\(folder.map(String.init) ?? "none")): "
                + "roll back the versions above \(folder.map(String.init) ?? "it") with the taskmigrate and migrations of the release that "
                + "applied them; nothing was rolled back"
        case let .unknownVersion(version, known):
            return "no migration has version \(version) (\(known))"
        case let .indexBuildStillRunning(file, index, pid, waited):
            return "\(file): a build of index \(index) is still running in server process \(pid) (an earlier, killed taskmigrate up?) "
                + "after waiting \(waited.displayText); let it finish and run up again, or stop it with SELECT pg_cancel_backend(\(pid))"
        case .historyNotEmpty(let current):
            return "the history already records migrations (up to version \(current)); baseline only works on a database without history"
        }
    }
}

/// The statement that failed, where it is in its file, and what the server said.
public struct MigrationStatementFailure: Error, Sendable, CustomStringConvertible {
    /// The migration file's path.
    public var path: String
    /// Where the error is: the server's position inside the statement when it gave one,
    /// else the statement's first line.
    public var location: SourceLocation
    /// Up or down.
    public var direction: MigrationDirection
    /// False for `-- migrate:no-transaction` files, whose earlier work is not undone.
    public var wasTransactional: Bool
    /// The server's error.
    public var error: PGError
    /// The INVALID index a failed concurrent build left behind, if any.
    public var leftoverIndex: String?

    /// `path:line:column: server error; what happened to the database`.
    public var description: String {
        let outcome =
            wasTransactional
            ? "rolled back: the database and its history are as before"
            : leftoverIndex.map {
                "the INVALID index \($0) is left behind (it serves no query); fix the cause and run up again, which drops and rebuilds it"
            } ?? "this no-transaction migration may have left partial work (e.g. an INVALID index); inspect it before running again"
        var server = error.sqlState.map { "\(error.severity ?? "ERROR") \($0): \(error.message)" } ?? error.message
        if let detail = error.detail { server += " (\(detail))" }
        if let hint = error.hint { server += "; hint: \(hint)" }
        if error.isCanceled, error.message.contains("statement timeout") { server += "; if it needs longer, raise --statement-timeout" }
        return "\(path):\(location): \(server); \(outcome)"
    }
}
