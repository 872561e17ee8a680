/// Runs `body` shielded from the calling task's cancellation and returns what it returns: for
/// work that must be done although its caller was cancelled (settling the idempotency claim of
/// a request whose client went away, rolling back, UNLISTEN). Everything that waits on
/// PostgreSQL ends when its task is cancelled, `PGConnection.connect` included; in here it
/// connects, runs its statements and waits for their answers as if nothing had happened.
///
/// `body` runs in a task of its own (unstructured: the caller's priority and task-local values,
/// not its cancellation), and the caller waits for it to end, even once cancelled itself.
public func withCancellationShield<T: Sendable>(_ body: sending @escaping @isolated(any) () async -> T) async -> T {
    await Task(operation: body).value
}

/// `withCancellationShield` for work that throws: its error is rethrown.
public func withCancellationShield<T: Sendable>(_ body: sending @escaping @isolated(any) () async throws -> T) async throws -> T {
    try await Task(operation: body).value
}
