import Foundation
import PGStore
import Synchronization

extension TaskStorePG {
    /// A store over the database `config` names, the way the programs open it.
    public static func open(config: PGConfig, runtimeRole: String? = "taskbase_app") async throws -> TaskStorePG {
        let source = ReusingConnectionSource(config: config)
        try await source.withConnection { _ in }
        return TaskStorePG(source: source, runtimeRole: runtimeRole)
    }
}

/// Keeps idle connections for reuse and opens more on demand.
final class ReusingConnectionSource: PGConnectionSource {
    let config: PGConfig
    private let idle = Mutex<[PGConnection]>([])

    init(config: PGConfig) { self.config = config }

    func withConnection<T: Sendable>(_ body: @Sendable (PGConnection) async throws -> T) async throws -> T {
        let connection: PGConnection
        if let reused = idle.withLock({ $0.popLast() }) { connection = reused } else { connection = try await PGConnection.connect(config) }
        let value = try await body(connection)
        if connection.transactionStatus == .idle && !connection.isClosed { idle.withLock { $0.append(connection) } }
        return value
    }
}
