import Foundation
import TaskCore
import TaskSessionContract
import TaskStoreContract
import TaskbaseTestSupport
import Testing

@Suite("The board view model")
struct TaskBoardTests {
    /// A team with an owner (who watches) and a member (who makes changes), on `backend`.
    struct Stage {
        let service: TaskService
        let watcher: any TaskSession
        let writer: any TaskSession
        let team: TeamKey
        let writerUser: User

        init(_ backend: Backend) async throws {
            let host = try await backend.host()
            let suffix = NameSource()
            let owner = try await host.service.createUser(email: "board.owner.\(suffix.next().lowercased())@example.com", displayName: "Owner")
            writerUser = try await host.service.createUser(email: "board.member.\(suffix.next().lowercased())@example.com", displayName: "Member")
            service = host.service
            watcher = try await host.open(owner)
            writer = try await host.open(writerUser)
            team = try await watcher.createTeam(key: "B" + suffix.next(), name: "Board").key
            try await watcher.setRole(.member, for: .email(writerUser.email), in: team)
        }

        /// The board a fresh load would show now, from the service directly.
        func freshBoard(pageSize: Int = 1000) async throws -> BoardSnapshot {
            let page = try await service.listTasks(in: team, TaskQuery(limit: pageSize), as: .id(writerUser.id))
            let members = try await service.members(of: team, as: .id(writerUser.id))
            return BoardSnapshot(team: team, tasks: page.tasks, members: members, today: ContractFixture.today, isTruncated: page.nextCursor != nil)
        }
    }

    /// Host-independent: each group's name with its titles, the status counts and overdue.
    static func shape(_ board: BoardSnapshot) -> String {
        let groups = board.groups.map { "\($0.name): \($0.rows.map(\.title).joined(separator: ", "))" }.joined(separator: "; ")
        let statuses = TaskStatus.allCases.map { "\($0.rawValue) \(board.byStatus[$0] ?? 0)" }.joined(separator: ", ")
        return "\(groups) | \(statuses) | overdue \(board.overdue)"
    }

    /// Waits until the board's snapshot stream shows `expected`.
    static func waitFor(_ expected: BoardSnapshot, on board: TaskBoard) async throws {
        try await waitUntil("the board to show \(shape(expected))", limit: .seconds(20)) {
            await board.current == expected
        }
    }

    @Test("loads the team grouped by category, counted by status, overdue against its clock", arguments: Backend.allCases)
    func loads(_ backend: Backend) async throws {
        let stage = try await Stage(backend)
        let day = { (offset: Int) in ContractFixture.today.adding(days: offset) }
        _ = try await stage.writer.createTask(in: stage.team, try TaskDraft(title: "Late report", dueDate: day(-1), category: "Docs"))
        _ = try await stage.writer.createTask(in: stage.team, try TaskDraft(title: "Fix bug", status: .inProgress, category: "Bugs"))
        _ = try await stage.writer.createTask(in: stage.team, try TaskDraft(title: "Loose end", status: .done, dueDate: day(-3)))
        _ = try await stage.writer.createTask(in: stage.team, try TaskDraft(title: "Lower docs", dueDate: day(0), category: "docs"))
        let board = TaskBoard(session: stage.watcher, team: stage.team, clock: .fixed(ContractFixture.start))
        try await board.start()
        defer { Task { await board.stop() } }
        let snapshot = try #require(await board.current)
        #expect(
            Self.shape(snapshot)
                == "Bugs: Fix bug; Docs: Late report; docs: Lower docs; Uncategorized: Loose end | open 2, in_progress 1, done 1 | overdue 1")
        #expect(snapshot == (try await stage.freshBoard()))
        #expect(!snapshot.isTruncated)
    }

    @Test("stays current while another user creates, edits, recategorises and deletes tasks", arguments: Backend.allCases)
    func followsChanges(_ backend: Backend) async throws {
        let stage = try await Stage(backend)
        let first = try await stage.writer.createTask(in: stage.team, try TaskDraft(title: "First", category: "Ops"))
        let board = TaskBoard(session: stage.watcher, team: stage.team, clock: .fixed(ContractFixture.start))
        try await board.start()
        defer { Task { await board.stop() } }
        var snapshots = await board.snapshots().makeAsyncIterator()
        #expect(await snapshots.next().map(Self.shape) == "Ops: First | open 1, in_progress 0, done 0 | overdue 0")

        let second = try await stage.writer.createTask(
            in: stage.team, try TaskDraft(title: "Second", dueDate: ContractFixture.today.adding(days: -2)))
        try await Self.waitFor(try await stage.freshBoard(), on: board)
        _ = try await stage.writer.updateTask(first.key, try TaskChanges(status: .inProgress, category: .set(nil)), expectedVersion: 1)
        _ = try await stage.writer.assignTask(second.key, to: .id(stage.writerUser.id))
        try await Self.waitFor(try await stage.freshBoard(), on: board)
        _ = try await stage.writer.completeTask(second.key)
        try await stage.writer.deleteTask(first.key)
        _ = try await stage.writer.createTask(in: stage.team, try TaskDraft(title: "Third", category: "Ops"))
        let expected = try await stage.freshBoard()
        try await Self.waitFor(expected, on: board)
        #expect(Self.shape(expected) == "Ops: Third; Uncategorized: Second | open 1, in_progress 0, done 1 | overdue 0")
        #expect(try #require(await board.current).groups.last?.rows.first?.assignee == stage.writerUser.email)
    }

    @Test("a board past its page shows that it is truncated, and its watchers' streams end when it stops", arguments: Backend.allCases)
    func truncatedAndStopped(_ backend: Backend) async throws {
        let stage = try await Stage(backend)
        for index in 1...3 { _ = try await stage.writer.createTask(in: stage.team, try TaskDraft(title: "Task \(index)")) }
        let board = TaskBoard(session: stage.watcher, team: stage.team, clock: .fixed(ContractFixture.start), pageSize: 2)
        try await board.start()
        let snapshot = try #require(await board.current)
        #expect(snapshot.isTruncated && snapshot.total == 2)
        let stream = await board.snapshots()
        await board.stop()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 1)
    }

    @Test("an outsider's board fails to start with the session's notFound", arguments: Backend.allCases)
    func outsiderCannotStart(_ backend: Backend) async throws {
        let host = try await backend.host()
        let names = NameSource()
        let owner = try await host.service.createUser(email: "o.\(names.next().lowercased())@example.com", displayName: "O")
        let stranger = try await host.service.createUser(email: "s.\(names.next().lowercased())@example.com", displayName: "S")
        let team = try await host.open(owner).createTeam(key: "S" + names.next(), name: "Secret").key
        let board = TaskBoard(session: try await host.open(stranger), team: team)
        await #expect(throws: TaskError.notFound(what: "team \(team)")) { try await board.start() }
    }
}
