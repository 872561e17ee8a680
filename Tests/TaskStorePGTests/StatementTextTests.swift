import Foundation
import PGStore
import TaskCore
import Testing
@testable import TaskStorePG

/// The hot statements keep their text made once and bind values per call (`MadeOnceText`);
/// these hold each to its written-out form, so that editing one and not the other fails here.
/// Each is made twice: the first call of a shape may be the one that runs the written form.
@Suite("Statements made once say what their written-out form says")
struct StatementTextTests {
    static let actors: [UserRef] = [.id(UserID(42)), .email("  Ann.Example@Example.COM ")]

    /// Same text, and the same parameters: count, types and values, in order.
    func expectSame(_ made: PGQuery, _ written: PGQuery, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(made.sql == written.sql, sourceLocation: sourceLocation)
        #expect(made.parameterCount == written.parameterCount, sourceLocation: sourceLocation)
        #expect(made.parameterTypeOIDs == written.parameterTypeOIDs, sourceLocation: sourceLocation)
        #expect(made.parameterTexts == written.parameterTexts, sourceLocation: sourceLocation)
    }

    @Test(
        "the session setup is its written form, for id, email and no actor, with and without a role",
        arguments: actors + [nil], [nil, "taskbase_app"])
    func sessionSetup(actor: UserRef?, role: String?) {
        for _ in 1...2 {
            expectSame(PostgresTaskStore.sessionSetup(actor: actor, role: role), PostgresTaskStore.writtenSessionSetup(actor: actor, role: role))
        }
    }

    @Test("the point read is its written form, for id and email actors", arguments: actors)
    func taskRead(actor: UserRef) throws {
        for number in [7, 8] as [Int64] {
            let key = TaskKey(team: try TeamKey("CORE"), number: number)
            expectSame(
                PostgresTaskStore.taskRead(key, actor: actor),
                PostgresTaskStore.writtenTaskRead(key, actor: actor))
        }
    }

    @Test(
        "the creation is its written form, for id and email actors and id, email and no assignee",
        arguments: actors, actors + [nil])
    func taskCreation(actor: UserRef, assignee: UserRef?) throws {
        let drafts = [
            try TaskDraft(title: "First", assignee: assignee),
            try TaskDraft(
                title: "Second", notes: "Some notes", status: .inProgress, priority: .high,
                dueDate: try CalendarDate(iso: "2027-02-28"), assignee: assignee, category: "Ops", externalID: "EXT-9"),
        ]
        let access = AccessRequirement(actor: actor, action: .writeTasks)
        let time = Date(timeIntervalSince1970: 1_790_000_000.25)
        for draft in drafts {
            let team = try TeamKey(draft.title == "First" ? "CORE" : "OPS")
            expectSame(
                PostgresTaskStore.taskCreation(in: team, draft: draft, access: access, at: time),
                PostgresTaskStore.writtenTaskCreation(in: team, draft: draft, access: access, at: time))
        }
    }

    @Test("the acting user is bound as an id or a normalized email, never written into the text")
    func actorIsBound() throws {
        let setup = PostgresTaskStore.sessionSetup(actor: .email(" Ann@Example.com"), role: "taskbase_app")
        #expect(setup.parameterTexts == ["ann@example.com", "taskbase_app"])
        #expect(!setup.sql.contains("ann@example.com") && !setup.sql.contains("taskbase_app"))
        let read = PostgresTaskStore.taskRead(TaskKey(team: try TeamKey("CORE"), number: 7), actor: .id(UserID(42)))
        #expect(read.parameterTexts == ["42", "CORE", "7"])
    }
}
