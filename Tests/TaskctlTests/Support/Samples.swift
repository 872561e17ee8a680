import Foundation
import TaskCore

/// Fixed users and tasks for formatting tests, built without a store.
enum Samples {
    static let created = Date(timeIntervalSince1970: 1_796_000_000)
    static let today = CalendarDate(year: 2026, month: 11, day: 30)!
    static let ann = User(id: UserID(1), email: "ann@example.com", displayName: "Ann Lee", isDisabled: false, createdAt: created)
    static let bob = User(id: UserID(2), email: "bob@example.com", displayName: "Bob", isDisabled: true, createdAt: created)
    static let team = Team(id: TeamID(1), key: try! TeamKey("CORE"), name: "Core platform", createdAt: created)
    static let members = [Member(user: ann, role: .owner), Member(user: bob, role: .member)]

    /// A task of CORE numbered `number`, created by Ann.
    static func task(
        _ number: Int64, title: String = "Fix login", status: TaskStatus = .open, due: CalendarDate? = nil,
        assignee: UserID? = nil, category: String? = nil, externalID: String? = nil, notes: String = ""
    ) -> TaskItem {
        TaskItem(
            id: TaskID(number), teamID: team.id, key: TaskKey(team: team.key, number: number), title: title, notes: notes,
            status: status, priority: .high, dueDate: due, assigneeID: assignee, category: category, externalID: externalID,
            createdBy: ann.id, createdAt: created, updatedBy: ann.id, updatedAt: created, version: 2)
    }
}
