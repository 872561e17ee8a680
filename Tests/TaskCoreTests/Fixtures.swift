import Foundation
import TaskCore

/// Fixed data for view-model and rule tests: team CORE, three people, a fixed day.
enum Fixtures {
    static let noon = Date(timeIntervalSince1970: 1_773_144_000)  // 2026-03-10T12:00:00Z
    static let today = CalendarDate(year: 2026, month: 3, day: 10)!
    static let team = Team(id: TeamID(1), key: try! TeamKey("CORE"), name: "Core", createdAt: noon)
    static let ann = User(id: UserID(1), email: "ann@example.com", displayName: "Ann", isDisabled: false, createdAt: noon)
    static let bob = User(id: UserID(2), email: "bob@example.com", displayName: "Bob", isDisabled: false, createdAt: noon)
    static let members = [Member(user: ann, role: .owner), Member(user: bob, role: .member)]

    static func task(
        _ number: Int64, status: TaskStatus = .open, due: CalendarDate? = nil, assignee: User? = nil, category: String? = nil,
        priority: TaskPriority = .none
    ) -> TaskItem {
        TaskItem(
            id: TaskID(number), teamID: team.id, key: TaskKey(team: team.key, number: number), title: "Task \(number)", notes: "",
            status: status, priority: priority, dueDate: due, assigneeID: assignee?.id, category: category, externalID: nil,
            createdBy: ann.id, createdAt: noon, updatedBy: ann.id, updatedAt: noon, version: 1)
    }
}
