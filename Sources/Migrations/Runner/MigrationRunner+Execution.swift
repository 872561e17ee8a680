import PGStore

extension MigrationRunner {
    /// Runs `files` in order in `direction`, reporting each start and finish. Each runs as
    /// the owner role once the schema has been handed to it (`MigrationOwnerRole`). A run
    /// stopped (SIGINT, SIGTERM, SIGHUP: the task cancelled) between two migrations starts no
    /// other: a cancel reaching the server while it is idle would be ignored, and the next
    /// migration's statements and COMMIT would go through after the signal.
    func runAll(_ files: [MigrationFile], _ direction: MigrationDirection, work: PGConnection, lockConnection: PGConnection) async throws {
        for file in files {
            try Task.checkCancellation()
            onEvent(.starting(file, direction: direction))
            let milliseconds = try await MigrationOwnerRole.adopting(on: work) {
                try await run(file, direction, work: work, lockConnection: lockConnection)
            }
            onEvent(.finished(file, direction: direction, milliseconds: milliseconds))
        }
    }

    /// Runs one migration in `direction`, retrying lock timeouts with backoff. Returns its
    /// execution time. A transactional migration and its history change commit together.
    func run(_ file: MigrationFile, _ direction: MigrationDirection, work: PGConnection, lockConnection: PGConnection) async throws -> Int64 {
        let interval = max(.milliseconds(10), min(.milliseconds(200), settings.lockTimeout / 4))
        let build = ConcurrentIndexBuild(file, direction)
        if direction == .up, let build, let milliseconds = try await reconcile(build, of: file, on: work) { return milliseconds }
        var attempt = 1
        var lastBlocker: LockBlocker?
        while true {
            let (result, seen) = await BlockerWatch.watching(pid: work.backendPID, on: lockConnection, interval: interval) {
                try await build?.dropLeftover(on: work)
                return try await runOnce(file, direction, on: work)
            }
            let blocker = seen ?? lastBlocker
            lastBlocker = blocker
            switch result {
            case .success(let milliseconds):
                return milliseconds
            case .failure(let error):
                if case .statementFailed(var failure) = error as? MigrationError, let build, !Self.isLockTimeout(error) {
                    failure.leftoverIndex = try? await build.leftover(on: work)
                    throw MigrationError.statementFailed(failure)
                }
                guard Self.isLockTimeout(error) else { throw error }
                guard attempt <= settings.lockRetries else {
                    var leftover: String?
                    if let build {
                        try? await build.dropLeftover(on: work)
                        leftover = try? await build.leftover(on: work)
                    }
                    throw MigrationError.lockTimeout(
                        file: file.path, attempts: attempt, lockTimeout: settings.lockTimeout, blocker: blocker,
                        leftoverIndex: leftover)
                }
                let delay = settings.backoff(beforeRetry: attempt) * Double.random(in: 0.8...1.2)
                onEvent(.retrying(file, attempt: attempt, of: settings.lockRetries, delay: delay, blocker: blocker))
                try await Task.sleep(for: delay)
                attempt += 1
            }
        }
    }

    /// Before a concurrent index build: waits while a build of the same index still runs (a
    /// killed run's backend goes on), then, when the index exists and is valid, records the
    /// migration as applied instead of failing on "already exists" forever. Returns nil when
    /// the build is still to be done.
    private func reconcile(_ build: ConcurrentIndexBuild, of file: MigrationFile, on work: PGConnection) async throws -> Int64? {
        let deadline = ContinuousClock.now + settings.migrationLockWait
        var told = false
        while let pid = try await build.runningBuild(on: work) {
            if !told {
                onEvent(.waitingForIndexBuild(file, index: build.index, pid: pid))
                told = true
            }
            guard ContinuousClock.now < deadline else {
                throw MigrationError.indexBuildStillRunning(file: file.path, index: build.index, pid: pid, waited: settings.migrationLockWait)
            }
            try await Task.sleep(for: settings.migrationLockPoll)
        }
        guard let index = try await build.built(on: work) else { return nil }
        try await history.insert(file, milliseconds: 0, operatorName: settings.operatorName, on: work)
        onEvent(.recordedExistingIndex(file, index: index))
        return 0
    }

    /// A 55P03 from a migration statement or from dropping a leftover index.
    private static func isLockTimeout(_ error: any Error) -> Bool {
        if case .statementFailed(let failure) = error as? MigrationError { return failure.error.code == .lockNotAvailable }
        return (error as? PGError)?.code == .lockNotAvailable
    }

    private func runOnce(_ file: MigrationFile, _ direction: MigrationDirection, on work: PGConnection) async throws -> Int64 {
        let clock = ContinuousClock()
        let start = clock.now
        let statements = direction == .up ? file.up : file.down ?? []
        let record = { (connection: PGConnection) in
            switch direction {
            case .up:
                try await history.insert(file, milliseconds: (clock.now - start).milliseconds, operatorName: settings.operatorName, on: connection)
            case .down:
                try await history.delete(file, on: connection)
            }
        }
        if file.runsInTransaction {
            let timeouts = [("lock_timeout", settings.lockTimeout.postgresSetting), ("statement_timeout", settings.statementTimeout.postgresSetting)]
            try await work.withTransaction(settings: timeouts) { connection in
                try await execute(statements, of: file, direction, on: connection)
                try await record(connection)
            }
        } else {
            try await execute(statements, of: file, direction, on: work)
            try await record(work)
        }
        return (clock.now - start).milliseconds
    }

    /// Sends each statement on its own, so a failure names its statement even when the server
    /// gives no position. A statement cancelled because the task was (Ctrl-C) is a
    /// `CancellationError`, not a migration failure.
    private func execute(
        _ statements: [SQLStatement], of file: MigrationFile, _ direction: MigrationDirection, on connection: PGConnection
    ) async throws {
        for statement in statements {
            do {
                _ = try await connection.simpleQuery(unsafeSQL: statement.text)
            } catch let error as PGError where error.kind == .server {
                if Task.isCancelled { throw CancellationError() }
                throw MigrationError.statementFailed(
                    MigrationStatementFailure(
                        path: file.path, location: file.location(of: statement, position: error.position),
                        direction: direction, wasTransactional: file.runsInTransaction, error: error))
            }
        }
    }
}
