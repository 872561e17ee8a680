import Foundation
import TaskCore
import Testing

@Suite("Access and edit rules")
struct RuleTests {
    @Test("each action needs its role: viewers read, members write, admins manage members, owners the team")
    func permissionModel() throws {
        let expected: [TeamAction: Role] = [.readTasks: .viewer, .writeTasks: .member, .manageMembers: .admin, .manageTeam: .owner]
        for action in TeamAction.allCases {
            let requirement = AccessRequirement(actor: .id(Fixtures.ann.id), action: action)
            for role in Role.allCases {
                let passed = (try? requirement.verify(AccessFacts(actor: Fixtures.ann, role: role), subject: "team CORE")) != nil
                #expect(passed == (role >= expected[action]!), "\(action) as \(role)")
            }
        }
    }

    @Test("outsiders are told the subject is not found; disabled and unknown actors are refused first")
    func refusalKinds() {
        let requirement = AccessRequirement(actor: .email("ann@example.com"), action: .readTasks)
        var disabled = Fixtures.ann
        disabled.isDisabled = true
        #expect(throws: TaskError.notFound(what: "task CORE-1")) {
            try requirement.verify(AccessFacts(actor: Fixtures.ann, role: nil), subject: "task CORE-1")
        }
        #expect(throws: TaskError.permissionDenied(what: "do anything", why: "ann@example.com is disabled; an operator can enable the account again"))
        {
            try requirement.verify(AccessFacts(actor: disabled, role: .owner), subject: "task CORE-1")
        }
        #expect(throws: TaskError.notFound(what: "user ann@example.com")) {
            try requirement.verify(AccessFacts(actor: nil, role: nil), subject: "task CORE-1")
        }
    }

    @Test("an edit moves version, updater and time only when a field really changes")
    func applyingEdits() throws {
        let task = Fixtures.task(1, category: "Ops")
        let later = Fixtures.noon.addingTimeInterval(60)
        let same = task.applying(try TaskChanges(title: "Task 1", category: .set("Ops")), assigneeID: nil, by: Fixtures.bob.id, at: later)
        #expect(same == task)
        let edited = task.applying(try TaskChanges(status: .done, category: .set(nil)), assigneeID: nil, by: Fixtures.bob.id, at: later)
        #expect(edited.version == 2 && edited.updatedBy == Fixtures.bob.id && edited.updatedAt == later)
        #expect(
            edited.changes(since: task) == [
                FieldChange(field: .status, old: "open", new: "done"), FieldChange(field: .category, old: "Ops", new: nil),
            ])
    }

    @Test("an assignee must exist, be enabled and belong to the team")
    func assigneeRule() throws {
        let ref = UserRef.id(Fixtures.bob.id)
        var disabled = Fixtures.bob
        disabled.isDisabled = true
        #expect(try AssigneeRule.verify(ref, user: Fixtures.bob, role: .viewer, team: Fixtures.team.key) == Fixtures.bob.id)
        for (user, role) in [(nil, Role.member), (Fixtures.bob, nil), (disabled, .member)] as [(User?, Role?)] {
            #expect(throws: TaskError.self) { try AssigneeRule.verify(ref, user: user, role: role, team: Fixtures.team.key) }
        }
    }

    @Test("a team keeps at least one owner")
    func ownerRule() {
        #expect(
            throws: TaskError.validation(field: "role", reason: "team CORE must keep at least one enabled owner; make another member an owner first")
        ) {
            try OwnerRule.verify(enabledOwnersAfterChange: 0, team: Fixtures.team.key)
        }
        #expect(throws: Never.self) { try OwnerRule.verify(enabledOwnersAfterChange: 1, team: Fixtures.team.key) }
    }

    @Test("errors read as one line saying what and why")
    func errorDescriptions() {
        #expect(
            TaskError.conflict(what: "task CORE-1", currentVersion: 3).description
                == "task CORE-1 is now at version 3, not the version the change was based on; nothing was changed: read it again and retry")
        #expect(
            TaskError.validation(field: "dueDate", reason: "2026-02-30 is not a real date").description
                == "invalid due date: 2026-02-30 is not a real date")
        #expect(TaskError.notFound(what: "task CORE-9").description == "task CORE-9 not found")
    }
}
