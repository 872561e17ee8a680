import Foundation
import TaskCore
import Testing

@Suite("View models")
struct ViewModelTests {
    @Test("a task row shows Uncategorized, Unassigned and empty due for missing values")
    func rowDisplaysMissingValues() {
        let row = TaskRow(Fixtures.task(7), members: [:], today: Fixtures.today)
        #expect(row == TaskRow.rows([Fixtures.task(7)], members: [], today: Fixtures.today)[0])
        #expect(row.key == "CORE-7")
        #expect(row.category == "Uncategorized")
        #expect(row.assignee == "Unassigned")
        #expect(row.due == "")
        #expect(row.status == "open" && row.priority == "none" && row.version == 1)
        #expect(!row.isOverdue)
    }

    @Test("a task row names its assignee by email and keeps its category")
    func rowNamesAssignee() {
        let task = Fixtures.task(1, due: Fixtures.today, assignee: Fixtures.bob, category: "Ops")
        let row = TaskRow.rows([task], members: Fixtures.members, today: Fixtures.today)[0]
        #expect(row.assignee == "bob@example.com")
        #expect(row.category == "Ops")
        #expect(row.due == "2026-03-10")
    }

    @Test(
        "overdue means due before today and not done, judged against the given day",
        arguments: [
            (CalendarDate(year: 2026, month: 3, day: 9)!, TaskStatus.open, true),
            (CalendarDate(year: 2026, month: 3, day: 9)!, .inProgress, true),
            (CalendarDate(year: 2026, month: 3, day: 9)!, .done, false),
            (CalendarDate(year: 2026, month: 3, day: 10)!, .open, false),
            (CalendarDate(year: 2026, month: 3, day: 11)!, .open, false),
        ])
    func overdueRule(due: CalendarDate, status: TaskStatus, overdue: Bool) {
        let row = TaskRow(Fixtures.task(1, status: status, due: due), members: [:], today: Fixtures.today)
        #expect(row.isOverdue == overdue)
    }

    @Test("the clock decides today: a fixed clock with an offset moves the day")
    func clockDecidesToday() {
        let lateEvening = Date(timeIntervalSince1970: 1_773_186_000)  // 2026-03-10T23:40:00Z
        #expect(TaskClock.fixed(lateEvening).today() == Fixtures.today)
        #expect(TaskClock.fixed(lateEvening, utcOffsetSeconds: 3600).today() == Fixtures.today.adding(days: 1))
        #expect(TaskClock.fixed(Fixtures.noon).now() == Fixtures.noon)
    }

    @Test("a summary counts by status, by category, overdue, and open tasks per assignee")
    func summaryCounts() {
        let yesterday = Fixtures.today.adding(days: -1)
        let tasks = [
            Fixtures.task(1, due: yesterday, assignee: Fixtures.ann, category: "Ops"),
            Fixtures.task(2, status: .inProgress, assignee: Fixtures.ann, category: "Ops"),
            Fixtures.task(3, status: .done, due: yesterday, assignee: Fixtures.bob),
            Fixtures.task(4, due: yesterday),
            Fixtures.task(5, assignee: Fixtures.bob, category: "Docs"),
        ]
        let summary = TeamSummary(team: Fixtures.team, counts: TaskCounts(tallying: tasks, today: Fixtures.today), members: Fixtures.members)
        #expect(summary.total == 5)
        #expect(summary.byStatus == [.open: 3, .inProgress: 1, .done: 1])
        #expect(
            summary.byCategory == [
                NamedCount(name: "Ops", count: 2), NamedCount(name: "Uncategorized", count: 2), NamedCount(name: "Docs", count: 1),
            ])
        #expect(summary.overdue == 2)
        #expect(
            summary.openByAssignee == [
                NamedCount(name: "ann@example.com", count: 2), NamedCount(name: "Unassigned", count: 1),
                NamedCount(name: "bob@example.com", count: 1),
            ])
    }

    @Test("an empty team's summary has every status at zero and no breakdowns")
    func emptySummary() {
        let summary = TeamSummary(team: Fixtures.team, counts: TaskCounts(), members: [])
        #expect(summary.byStatus == [.open: 0, .inProgress: 0, .done: 0])
        #expect(summary.byCategory.isEmpty && summary.openByAssignee.isEmpty && summary.overdue == 0)
    }
}
