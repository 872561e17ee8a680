import Foundation
import TaskCore

/// A team in JSON: `id`, `key`, `name`, `created_at`, and `role`, the acting user's role in it.
struct TeamDocument: Encodable {
    var id: Int64
    var key: String
    var name: String
    var createdAt: Date
    var role: String

    enum CodingKeys: String, CodingKey {
        case id, key, name, createdAt = "created_at", role
    }

    /// The document of a team seen by a member with `role`.
    init(_ team: Team, role: Role) {
        id = team.id.rawValue
        key = team.key.rawValue
        name = team.name
        createdAt = team.createdAt
        self.role = role.rawValue
    }
}

/// A member in JSON: `user_id`, `email`, `display_name`, `role`, `disabled`.
struct MemberDocument: Encodable {
    var userID: Int64
    var email: String
    var displayName: String
    var role: String
    var disabled: Bool

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", email, displayName = "display_name", role, disabled
    }

    /// The document of `member`.
    init(_ member: Member) {
        userID = member.user.id.rawValue
        email = member.user.email
        displayName = member.user.displayName
        role = member.role.rawValue
        disabled = member.user.isDisabled
    }
}

/// How teams and members print.
enum TeamOutput {
    /// `team list`.
    static let list = ListOutput<TeamMembership>(
        table: [
            .init("KEY") { $0.team.key.rawValue },
            .init("NAME", maxWidth: 50) { $0.team.name },
            .init("ROLE") { $0.role.rawValue },
        ],
        csv: [
            .init("id") { String($0.team.id.rawValue) },
            .init("key") { $0.team.key.rawValue },
            .init("name") { $0.team.name },
            .init("created_at") { Timestamp.iso($0.team.createdAt) },
            .init("role") { $0.role.rawValue },
        ])

    /// `team members`.
    static let members = ListOutput<Member>(
        table: [
            .init("EMAIL") { $0.user.email },
            .init("NAME", maxWidth: 40) { $0.user.displayName },
            .init("ROLE") { $0.role.rawValue + ($0.user.isDisabled ? " (disabled)" : "") },
        ],
        csv: [
            .init("user_id") { String($0.user.id.rawValue) },
            .init("email") { $0.user.email },
            .init("display_name") { $0.user.displayName },
            .init("role") { $0.role.rawValue },
            .init("disabled") { String($0.user.isDisabled) },
        ])
}
