import PGStore

extension MigrationRunner {
    /// Applies pending migrations up to `target` (all when nil), in order, each in its own
    /// transaction unless marked no-transaction. Returns what it applied; empty means the
    /// database was already up to date (perhaps thanks to a concurrent runner). First it
    /// records the checksums of files whose reviewed comment-only edits the history predates.
    @discardableResult
    public func up(to target: Int64? = nil) async throws -> [MigrationFile] {
        try await withMigrationLock { work, lockConnection, plan in
            let files = try runnable(plan, upTo: target, database: try await LintDatabaseFacts.read(on: work))
            try await recordSupersededChecksums(plan, on: work)
            try await runAll(files, .up, work: work, lockConnection: lockConnection)
            return files
        }
    }

    /// Rolls back applied migrations newer than `target` (only the newest when nil), newest
    /// first, running their down sections. Refuses before doing anything when one has no
    /// down section. `confirm` sees the files, under the lock, before anything runs: throwing
    /// from it (an operator who did not say yes) changes nothing.
    @discardableResult
    public func down(to target: Int64? = nil, confirm: ([MigrationFile]) async throws -> Void = { _ in }) async throws -> [MigrationFile] {
        try await withMigrationLock(createsHistory: false) { work, lockConnection, plan in
            if let target, target != 0, !plan.applied.contains(where: { $0.version == target }) {
                throw MigrationError.unknownVersion(target, known: "--to takes 0 or an applied version")
            }
            if let newest = plan.ahead.last {
                throw MigrationError.aheadOfFolder(newest: newest.version, folder: plan.entries.last { $0.file != nil }?.version)
            }
            let newestFirst = plan.applied.reversed().compactMap(\.file)
            let files = target.map { target in newestFirst.filter { $0.version > target } } ?? Array(newestFirst.prefix(1))
            let irreversible = files.filter { $0.down == nil }.map(\.path)
            guard irreversible.isEmpty else { throw MigrationError.notReversible(irreversible) }
            if !files.isEmpty { try await confirm(files) }
            try await runAll(files, .down, work: work, lockConnection: lockConnection)
            return files
        }
    }

    /// Records every migration up to `version` as applied without running it, for a database
    /// whose schema was built before taskmigrate managed it. Only on an empty history.
    @discardableResult
    public func baseline(_ version: Int64) async throws -> [MigrationFile] {
        try await withMigrationLock { work, _, plan in
            if let current = plan.currentVersion { throw MigrationError.historyNotEmpty(currentVersion: current) }
            guard plan.entries.contains(where: { $0.version == version }) else {
                throw MigrationError.unknownVersion(version, known: Self.knownVersions(plan))
            }
            let files = plan.pending.filter { $0.version <= version }
            try await work.withTransaction { connection in
                for file in files {
                    try await history.insert(file, milliseconds: 0, operatorName: settings.operatorName, baseline: true, on: connection)
                }
            }
            return files
        }
    }

    /// Replaces every superseded checksum in the history with its file's checksum now, in one
    /// transaction, so the history names the bytes in the folder again.
    func recordSupersededChecksums(_ plan: MigrationPlan, on work: PGConnection) async throws {
        let stale = plan.entries.filter(\.recordsSupersededChecksum)
        guard !stale.isEmpty else { return }
        try await work.withTransaction { connection in
            for entry in stale {
                guard let file = entry.file, let record = entry.record else { continue }
                try await history.recordChecksum(of: file, replacing: record.checksum, on: connection)
            }
        }
        for entry in stale {
            guard let file = entry.file, let record = entry.record else { continue }
            onEvent(.checksumRecorded(file, previous: record.checksum))
        }
    }
}
