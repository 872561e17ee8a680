/// A store that can read as of one moment: every read made through the store it lends sees
/// the data as it was when the first of them ran, whatever is written meanwhile. For reads
/// only (PostgreSQL refuses writes through it).
public protocol ReadSnapshotting: Sendable {
    /// Runs `body` with a store whose reads all see one snapshot.
    func withReadSnapshot<T: Sendable>(_ body: @Sendable (any TaskStore) async throws -> T) async throws -> T
}

extension TaskService {
    /// Runs `body` with a service whose reads all see the data as of one moment (an export
    /// that is one snapshot, as `pg_dump` or a single `COPY` gives), when the store can
    /// (`ReadSnapshotting`: both of Taskbase's stores); otherwise with this service. For reads
    /// only.
    public func withReadSnapshot<T: Sendable>(_ body: @Sendable (TaskService) async throws -> T) async throws -> T {
        guard let snapshotting = store as? any ReadSnapshotting else { return try await body(self) }
        let clock = self.clock
        return try await snapshotting.withReadSnapshot { store in try await body(TaskService(store: store, clock: clock)) }
    }
}
