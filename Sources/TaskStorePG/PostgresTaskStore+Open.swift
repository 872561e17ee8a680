import Foundation
import PGStore

/// The programs' pool lends connections to the store.
extension PGPool: PGConnectionSource {}

extension PostgresTaskStore {
    /// A store over the database `config` names, the way the programs open it: a pool of up
    /// to `maxConnections`, checked by opening one connection now so that a bad configuration
    /// fails here, with a connection error, rather than at the first call.
    public static func open(
        config: PGConfig, maxConnections: Int = 8, runtimeRole: String? = "taskbase_app",
        statementObserver: (@Sendable ([PGQuery]) -> Void)? = nil, listenConfig: PGConfig? = nil, acquireTimeout: Duration = .seconds(10),
        limits: PGSessionLimits? = nil
    ) async throws -> PostgresTaskStore {
        let pool = PGPool(config: config, options: PGPoolOptions(maxConnections: maxConnections, acquireTimeout: acquireTimeout))
        try await pool.withConnection { _ in }
        return PostgresTaskStore(
            source: pool, runtimeRole: runtimeRole, statementObserver: statementObserver, listenConfig: listenConfig, limits: limits)
    }
}
