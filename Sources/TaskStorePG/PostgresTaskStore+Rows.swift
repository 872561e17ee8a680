import Foundation
import PGStore
import TaskCore

/// Column lists and row readers shared by every query of the store.
extension PostgresTaskStore {
    static let userColumns = "u.id AS user_id, u.email, u.display_name, u.disabled, u.created_at AS user_created_at, u.is_operator"
    static let teamColumns = "tm.id AS team_id, tm.key AS team_key, tm.name AS team_name, tm.created_at AS team_created_at"
    static let taskColumns = """
        t.id AS task_id, t.team_id AS task_team_id, t.number, t.title, t.notes, t.status, t.priority, t.due_date, \
        t.assignee_id, t.category, t.external_id, t.created_by, t.created_at, t.updated_by, t.updated_at, t.version
        """

    /// The user in `row` (columns of `userColumns`), or nil when its id is NULL (a LEFT JOIN missed).
    static func user(in row: PGRow) throws -> User? {
        guard let id = try row.decode(Int64?.self, "user_id") else { return nil }
        return User(
            id: UserID(id), email: try row.decode(String.self, "email"),
            displayName: try row.decode(String.self, "display_name"),
            isDisabled: try row.decode(Bool.self, "disabled"), createdAt: try row.decode(Date.self, "user_created_at"),
            isOperator: try row.decode(Bool.self, "is_operator"))
    }

    /// The team in `row` (columns of `teamColumns`), or nil.
    static func team(in row: PGRow) throws -> Team? {
        guard let id = try row.decode(Int64?.self, "team_id") else { return nil }
        return Team(
            id: TeamID(id), key: try TeamKey(try row.decode(String.self, "team_key")),
            name: try row.decode(String.self, "team_name"), createdAt: try row.decode(Date.self, "team_created_at"))
    }

    /// The role in column `column`, or nil.
    static func role(in row: PGRow, _ column: String = "role") throws -> Role? {
        try row.decode(String?.self, column).flatMap(Role.init(rawValue:))
    }

    /// The task in `row` (columns of `taskColumns`) of team `team`, or nil.
    static func task(in row: PGRow, team: TeamKey) throws -> TaskItem? {
        guard let id = try row.decode(Int64?.self, "task_id") else { return nil }
        return TaskItem(
            id: TaskID(id), teamID: TeamID(try row.decode(Int64.self, "task_team_id")),
            key: TaskKey(team: team, number: try row.decode(Int64.self, "number")),
            title: try row.decode(String.self, "title"), notes: try row.decode(String.self, "notes"),
            status: try enumValue(TaskStatus.self, row, "status"), priority: try enumValue(TaskPriority.self, row, "priority"),
            dueDate: try row.decode(PGDate?.self, "due_date").map(calendarDate),
            assigneeID: try row.decode(Int64?.self, "assignee_id").map(UserID.init),
            category: try row.decode(String?.self, "category"), externalID: try row.decode(String?.self, "external_id"),
            createdBy: UserID(try row.decode(Int64.self, "created_by")), createdAt: try row.decode(Date.self, "created_at"),
            updatedBy: UserID(try row.decode(Int64.self, "updated_by")), updatedAt: try row.decode(Date.self, "updated_at"),
            version: try row.decode(Int64.self, "version"))
    }

    static func enumValue<T: RawRepresentable>(_ type: T.Type, _ row: PGRow, _ column: String) throws -> T where T.RawValue == String {
        let text = try row.decode(String.self, column)
        guard let value = T(rawValue: text) else {
            throw UnexpectedStoredValue(column: column, value: text, expected: "\(T.self)")
        }
        return value
    }

    static func calendarDate(_ date: PGDate) -> CalendarDate {
        CalendarDate(daysSinceEpoch: Int64(date.daysSinceEpoch))
    }

    static func pgDate(_ date: CalendarDate) -> PGDate {
        PGDate(daysSinceEpoch: Int(date.daysSinceEpoch))
    }

    /// The FROM clause every gated statement starts with: one row carrying the acting user
    /// (`u`), the team by key (`tm`, when visible) and the actor's membership (`m`), each NULL
    /// when missing — the facts `AccessRequirement.verify` judges.
    static func accessFactsFrom(_ actor: UserRef, team: TeamKey) -> PGQuery {
        """
        (SELECT 1) one
          LEFT JOIN users u ON \(userMatch("u", actor))
          LEFT JOIN teams tm ON tm.key = \(team.rawValue)
          LEFT JOIN memberships m ON m.team_id = tm.id AND m.user_id = u.id
        """
    }

    /// The rank SQL compares roles by: `array_position(roleRanks, role)`.
    static let roleRanks = "ARRAY['viewer','member','admin','owner']"

    static func rank(_ role: Role) -> Int {
        [Role.viewer, .member, .admin, .owner].firstIndex(of: role)! + 1
    }
}

/// A value in the database that TaskCore has no word for (a schema older or newer than the code).
struct UnexpectedStoredValue: Error, CustomStringConvertible {
    var column: String
    var value: String
    var expected: String
    var description: String { "column \"\(column)\" holds \"\(value)\", which is not a \(expected): is the schema up to date (taskmigrate status)?" }
}
