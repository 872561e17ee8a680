import PGStore

/// Applies, rolls back, verifies and reports migrations of one folder against one database.
///
/// Every command that changes the database works under the migration lock (see
/// `MigrationLock`), re-reads the history once it holds it, and verifies the folder against
/// it before running anything.
public struct MigrationRunner: Sendable {
    /// Where the migration files are.
    public var directory: MigrationDirectory
    /// The database to migrate.
    public var config: PGConfig
    /// Timeouts, retries and lock waiting.
    public var settings: MigrationSettings
    /// Receives progress; called on the running task.
    public var onEvent: @Sendable (MigrationEvent) -> Void

    let history = MigrationHistory()

    /// A runner for `directory` against `config`.
    public init(
        directory: MigrationDirectory, config: PGConfig, settings: MigrationSettings = MigrationSettings(),
        onEvent: @escaping @Sendable (MigrationEvent) -> Void = { _ in }
    ) {
        self.directory = directory
        var config = config
        if config["application_name"] == nil { config["application_name"] = "taskmigrate" }
        self.config = config
        self.settings = settings
        self.onEvent = onEvent
    }

    /// The folder compared with the history, read without taking the lock or creating anything.
    public func plan() async throws -> MigrationPlan {
        let files = try directory.load()
        let recorded = try await withConnection { try await history.read(on: $0) }
        return MigrationPlan(files: files, history: recorded)
    }

    /// The database's INVALID indexes, left by failed or killed concurrent builds: they serve
    /// no query and block a rerun of their migration until dropped.
    public func invalidIndexes() async throws -> [InvalidIndex] {
        try await withConnection { try await ConcurrentIndexBuild.invalidIndexes(on: $0) }
    }

    /// The session defaults carried by the logins granted the runtime role `taskbase_app` (the
    /// programs' logins), which any of them may give itself and which outlive a new password: a
    /// stolen runtime login can leave them behind (docs/security.md). None before the role exists.
    public func runtimeLoginDefaults() async throws -> [PGRoleDefaults] {
        try await withConnection { connection in
            try await PGRoleDefaults.read(
                on: connection,
                rolesWhere: """
                    r.rolcanlogin AND r.oid IN (SELECT m.member FROM pg_catalog.pg_auth_members m
                                                 WHERE m.roleid = pg_catalog.to_regrole('taskbase_app'))
                    """)
        }
    }

    /// What `up --to target` would run, after verification and lint, without running it.
    public func pending(upTo target: Int64? = nil) async throws -> [MigrationFile] {
        let files = try directory.load()
        let (plan, facts) = try await withConnection { connection in
            (MigrationPlan(files: files, history: try await history.read(on: connection)), try await LintDatabaseFacts.read(on: connection))
        }
        try plan.verify(allowingNewer: settings.allowNewer)
        return try runnable(plan, upTo: target, database: facts)
    }

    /// Runs `body` with a fresh connection, closing it afterwards whatever happens.
    func withConnection<T>(_ body: (PGConnection) async throws -> T) async throws -> T {
        try await PGConnection.with(config, body)
    }

    /// Runs `body` holding the migration lock, with a work connection (session timeouts set),
    /// the lock's own connection (for watching blockers), and the plan re-read under the lock
    /// and verified. The history table is created first when `createsHistory` (a command that
    /// records migrations); one that only removes records (`down`) leaves a database without it
    /// as it was, never migrated.
    func withMigrationLock<T>(
        createsHistory: Bool = true, _ body: (PGConnection, PGConnection, MigrationPlan) async throws -> T
    ) async throws
        -> T
    {
        let files = try directory.load()
        return try await withConnection { lockConnection in
            let lock = MigrationLock(connection: lockConnection)
            try await lock.acquire(wait: settings.migrationLockWait, poll: settings.migrationLockPoll) { holder in
                onEvent(.waitingForMigrationLock(holder: holder))
            }
            let value = try await withConnection { work in
                _ = try await work.query(
                    """
                    SELECT set_config('lock_timeout', \(settings.lockTimeout.postgresSetting), false),
                           set_config('statement_timeout', \(settings.statementTimeout.postgresSetting), false)
                    """)
                if createsHistory { try await history.create(on: work) }
                let plan = MigrationPlan(files: files, history: try await history.read(on: work))
                onEvent(.migrationLockAcquired)
                try plan.verify(allowingNewer: settings.allowNewer)
                return try await body(work, lockConnection, plan)
            }
            try await lock.release()
            return value
        }
    }

    /// The pending files up to `target`, refused when one is empty or lint flags one without
    /// `-- lint:allow` (findings of rules that do not stop `up` are passed on as warnings).
    /// Lint reads the whole folder, starting from what `database` already proves, so applied
    /// files count as context (a check they validated) and later files as fixes (a SECURITY
    /// DEFINER function's search_path), but only pending files are judged.
    func runnable(_ plan: MigrationPlan, upTo target: Int64?, database: LintDatabaseFacts) throws -> [MigrationFile] {
        if let target, !plan.entries.contains(where: { $0.version == target }) {
            throw MigrationError.unknownVersion(target, known: Self.knownVersions(plan))
        }
        let files = plan.pending.filter { file in target.map { file.version <= $0 } ?? true }
        if let empty = files.first(where: \.up.isEmpty) {
            throw MigrationFileError(path: empty.path, message: "the up section has no statements; write the migration or delete the file")
        }
        let judged = Set(files.map(\.path))
        let findings = MigrationLinter().lint(plan.entries.compactMap(\.file), database: database).filter {
            !$0.isAllowed && judged.contains($0.path)
        }
        let refused = findings.filter(\.rule.stopsUp)
        guard refused.isEmpty else { throw MigrationError.lintRefused(refused) }
        for finding in findings { onEvent(.lintWarning(finding)) }
        return files
    }

    static func knownVersions(_ plan: MigrationPlan) -> String {
        guard let first = plan.entries.first, let last = plan.entries.last else { return "the folder holds no migrations" }
        return "known versions run from \(first.version) to \(last.version)"
    }
}
