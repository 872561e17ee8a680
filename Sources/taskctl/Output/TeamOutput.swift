import Foundation
import TaskCore
import TaskbaseWire

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

/// `team remove-member --json`: `team` (its key), `removed` (the user's email) and
/// `unassigned_tasks`, how many of their tasks in the team the removal unassigned.
struct MemberRemovalOutput: Encodable {
    let team: String
    let removed: String
    let unassignedTasks: Int

    enum CodingKeys: String, CodingKey {
        case team, removed, unassignedTasks = "unassigned_tasks"
    }

    init(_ removal: MemberRemoval) {
        team = removal.team.rawValue
        removed = removal.user.email
        unassignedTasks = removal.unassignedTasks
    }
}
