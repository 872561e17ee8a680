import PGStore
import TaskCore

extension PostgresTaskStore: ReadSnapshotting {
    /// Holds one connection of the source in a `REPEATABLE READ READ ONLY` transaction for the
    /// length of `body`, and lends `body` a store whose every statement runs in it: all of them
    /// see the snapshot the first one took. Each still starts with the session setup (the
    /// runtime role and the acting user, transaction-local), so row-level security applies as
    /// to any statement. The connection is the caller's until `body` returns: a program's
    /// export, not a server answering many (a slow reader would hold it).
    public func withReadSnapshot<T: Sendable>(_ body: @Sendable (any TaskStore) async throws -> T) async throws -> T {
        do {
            return try await source.withConnection { connection in
                try await connection.withTransaction(isolation: .repeatableRead, readOnly: true) { transaction in
                    let lent = OneConnectionSource(transaction, config: source.config)
                    return try await body(
                        PostgresTaskStore(
                            source: lent, runtimeRole: runtimeRole, statementObserver: statementObserver, listenConfig: listenConfig,
                            limits: limits))
                }
            }
        } catch let error as PGError {
            throw Self.translate(error)
        }
    }
}

/// One connection, inside a transaction its owner holds open, lent to one caller at a time
/// (statements of a read snapshot; a caller's own transaction becomes a savepoint of it).
final class OneConnectionSource: PGConnectionSource {
    let config: PGConfig
    private let connection: PGConnection
    private let turns = OneAtATime()

    init(_ connection: PGConnection, config: PGConfig) {
        self.connection = connection
        self.config = config
    }

    func withConnection<T>(_ body: (PGConnection) async throws -> T) async throws -> T {
        try await turns.run { try await body(connection) }
    }
}
