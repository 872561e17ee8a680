import PGStore
import Synchronization
import TaskCore

/// The SQL text of a hot statement, made once for each shape it takes and reused, so that a
/// call only binds its values. A statement's shape is what its text depends on — the form in
/// which it names a user (by id, by email, not at all), whether it sets a role — never a value.
///
/// The written-out statement, which interpolates its values, stays the one source of the
/// text: the first call of each shape runs it and keeps its text and parameter count; later
/// calls start from that text and `bind` their values, which must be the written form's values
/// in its order. `StatementTextTests` holds every statement's two forms to each other, and a
/// call that binds another number of values than the written form stops the program (a
/// statement sent with misplaced values must never reach the server).
final class MadeOnceText<Shape: Hashable & Sendable>: Sendable {
    private let texts = Mutex<[Shape: (sql: String, parameterCount: Int)]>([:])

    /// The statement for `shape`: `written()` on the shape's first call, else the kept text
    /// with the values `bind` binds.
    func query(_ shape: Shape, written: () -> PGQuery, bind: (inout PGQuery) -> Void) -> PGQuery {
        guard let made = texts.withLock({ $0[shape] }) else {
            let query = written()
            texts.withLock { $0[shape] = (query.sql, query.parameterCount) }
            return query
        }
        var query = PGQuery(unsafeSQL: made.sql, parameterCapacity: made.parameterCount)
        bind(&query)
        precondition(
            query.parameterCount == made.parameterCount,
            "a made-once statement bound \(query.parameterCount) values, its text has \(made.parameterCount)")
        return query
    }
}

/// The form in which a statement names a user, which decides its text (`PostgresTaskStore.userMatch`).
enum UserForm: Hashable, Sendable {
    case id, email, none

    init(_ ref: UserRef?) {
        switch ref {
        case .id: self = .id
        case .email: self = .email
        case nil: self = .none
        }
    }
}
