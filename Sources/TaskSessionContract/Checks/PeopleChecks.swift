import TaskCore
import TaskStoreContract
import Testing

extension TaskSessionContract {
    static let peopleChecks: [SessionCheck] = [
        SessionCheck("tasks, history and changes by people who left the team or were disabled read exactly as the service gives them") { f in
            let leaver = try await f.makePerson(), assignee = try await f.makePerson(), disabledAuthor = try await f.makePerson()
            for person in [leaver, assignee, disabledAuthor] { try await f.owner.session.setRole(.member, for: person.address, in: f.team) }
            let feed = try await f.viewer.session.changes(in: f.team)
            let left = try await leaver.session.createTask(in: f.team, try TaskDraft(title: "Left behind", assignee: assignee.ref))
            _ = try await leaver.session.updateTask(left.key, try TaskChanges(notes: "handed over"), expectedVersion: 1)
            let orphan = try await disabledAuthor.session.createTask(
                in: f.team, try TaskDraft(title: "Author disabled", assignee: disabledAuthor.ref))
            try await f.admin.session.removeMember(leaver.ref, from: f.team)
            try await f.admin.session.removeMember(assignee.ref, from: f.team)
            _ = try await f.service.setUserDisabled(disabledAuthor.ref, true)
            // A session opened now has never met the people who left (a client learns ids as it goes).
            let reader = try await f.host.open(f.viewer.user)

            for key in [left.key, orphan.key] {
                #expect(try await reader.task(key) == (try await f.service.task(key, as: f.viewer.ref)), "\(key)")
                #expect(try await reader.history(of: key) == (try await f.service.history(of: key, as: f.viewer.ref)), "\(key)")
            }
            #expect(try await reader.allTasks(in: f.team) == (try await f.service.session(as: f.viewer.ref).allTasks(in: f.team)))
            let logged = try await TaskStoreContract.collect(3, from: try await f.service.changes(in: f.team, after: 0, as: f.viewer.ref))
            #expect(try await TaskStoreContract.collect(3, from: feed) == logged)
            let first = try #require(logged.first?.sequence)
            #expect(try await TaskStoreContract.collect(2, from: try await reader.changes(in: f.team, after: first)) == Array(logged.dropFirst()))
        }
    ]
}
