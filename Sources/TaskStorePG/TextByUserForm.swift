import PGStore
import TaskCore

/// A statement's SQL text for each form an acting user can be named in — by id, by email, or
/// not at all — since `TaskStorePG.userMatch` writes a condition of its own for each. Made
/// once, for hot statements that bind only their values per call.
struct TextByUserForm: Sendable {
    let id: String
    let email: String
    let none: String

    /// The text `write` makes for each form (the values it binds do not matter).
    init(_ write: (UserRef?) -> PGQuery) {
        id = write(.id(UserID(0))).sql
        email = write(.email("")).sql
        none = write(nil).sql
    }

    /// The text for the form `ref` is in.
    subscript(_ ref: UserRef?) -> String {
        switch ref {
        case .id: id
        case .email: email
        case nil: none
        }
    }
}
