import TaskCore
import TaskStoreContract
import Testing

extension TaskSessionContract {
    static let teamChecks: [SessionCheck] = [
        SessionCheck("a team is created, renamed, staffed and deleted through its owner's session") { f in
            let key = "N" + f.uniqueSuffix().lowercased()
            let team = try await f.outsider.session.createTeam(key: key, name: "New team")
            #expect(team.key.description == key.uppercased() && team.name == "New team")
            #expect(try await f.outsider.session.renameTeam(team.key, to: "Renamed").name == "Renamed")
            let member = try await f.outsider.session.setRole(.member, for: .email(f.viewer.user.email.uppercased()), in: team.key)
            #expect(member == Member(user: f.viewer.user, role: .member))
            #expect(try await f.viewer.session.team(team.key).role == .member)
            #expect(Set(try await f.viewer.session.members(of: team.key).map(\.user.email)) == [f.outsider.user.email, f.viewer.user.email])
            try await f.outsider.session.removeMember(f.viewer.ref, from: team.key)
            #expect(await Outcome.of { _ = try await f.viewer.session.team(team.key) } == .notFound)
            try await f.outsider.session.deleteTeam(team.key)
            #expect(await Outcome.of { _ = try await f.outsider.session.team(team.key) } == .notFound)
        },
        SessionCheck("a team deleted by someone else and made again under its key: tasks read afterwards carry the new team's id") { f in
            // The member's session learns the team's id, then the owner deletes the team and the
            // member makes another under the same key. Over HTTP the client once kept the old id
            // and gave it to every task of the new team.
            let key = "R" + f.uniqueSuffix()
            let old = try await f.owner.session.createTeam(key: key, name: "Old")
            _ = try await f.owner.session.setRole(.member, for: f.member.ref, in: old.key)
            let first = try await f.member.session.createTask(in: old.key, try TaskDraft(title: "Old task"))
            #expect(first.teamID == old.id)
            try await f.owner.session.deleteTeam(old.key)
            let again = try await f.outsider.session.createTeam(key: key, name: "Again")
            _ = try await f.outsider.session.setRole(.member, for: f.member.address, in: again.key)
            #expect(again.id != old.id)
            let made = try await f.member.session.createTask(in: again.key, try TaskDraft(title: "New task"))
            #expect(made.teamID == again.id, "created")
            #expect(try await f.member.session.listTasks(in: again.key).tasks.map(\.teamID) == [again.id], "listed")
            #expect(try await f.member.session.task(made.key).teamID == again.id, "read")
        },
        SessionCheck("a person whose email holds / ? # % + is named by email like anyone: added, given a role and removed") { f in
            // All valid in an address's local part; over HTTP each must stay inside its path segment.
            let odd = try await f.service.createUser(email: "a/b?c#d%41+e.\(f.uniqueSuffix().lowercased())@example.com", displayName: "Odd")
            let added = try await f.owner.session.setRole(.viewer, for: .email(odd.email), in: f.team)
            #expect(added == Member(user: odd, role: .viewer))
            #expect(try await f.owner.session.setRole(.member, for: .email(odd.email), in: f.team).role == .member)
            #expect(try await f.viewer.session.members(of: f.team).contains(Member(user: odd, role: .member)))
            try await f.owner.session.removeMember(.email(odd.email), from: f.team)
            #expect(try await !f.viewer.session.members(of: f.team).contains { $0.user.id == odd.id })
        },
        SessionCheck("a removal says how many of the member's tasks in the team it unassigned, leaving too; other teams' stay assigned") { f in
            // Removing answered nothing (HTTP 204): nobody was told how many tasks lost their assignee.
            let elsewhere = try await f.makeTeam()
            var toMember = TaskDraftFields(), toViewer = TaskDraftFields()
            toMember.assignee = f.member.ref
            toViewer.assignee = f.viewer.ref
            for title in ["One", "Two"] { try await f.makeTask(title, toMember) }
            try await f.makeTask("Viewer's", toViewer)
            let kept = try await f.makeTask("Member's elsewhere", in: elsewhere, toMember)
            let removed = try await f.admin.session.removeMember(f.member.ref, from: f.team)
            #expect(removed == MemberRemoval(team: f.team, user: f.member.user, unassignedTasks: 2))
            let left = try await f.viewer.session.removeMember(f.viewer.address, from: f.team)
            #expect(left == MemberRemoval(team: f.team, user: f.viewer.user, unassignedTasks: 1))
            #expect(try await f.owner.session.task(kept.key) == kept)
            #expect(try await f.member.session.removeMember(f.member.ref, from: elsewhere).unassignedTasks == 1)
        },
        SessionCheck("only an owner touches the owner role, and the last owner cannot leave") { f in
            #expect(await Outcome.of { try await f.admin.session.setRole(.owner, for: f.member.ref, in: f.team) } == .denied)
            #expect(await Outcome.of { try await f.admin.session.removeMember(f.owner.ref, from: f.team) } == .denied)
            try await f.owner.session.removeMember(f.disabled.ref, from: f.team)
            #expect(await Outcome.of { try await f.owner.session.removeMember(f.owner.ref, from: f.team) } == .invalid(field: "user"))
            try await f.owner.session.setRole(.owner, for: f.admin.ref, in: f.team)
            try await f.owner.session.removeMember(f.owner.ref, from: f.team)
            #expect(await Outcome.of { _ = try await f.owner.session.listTasks(in: f.team) } == .notFound)
        },
        SessionCheck("anyone may leave a team, by id or email, but remove nobody else; one added without asking can take themself out") { f in
            // Any user can own a team of their own and add anyone; the added could not leave
            // (403: removing a member takes an admin), however they named themself.
            let key = "L" + f.uniqueSuffix().lowercased()
            let team = try await f.outsider.session.createTeam(key: key, name: "Unasked").key
            for person in [f.viewer, f.member] { _ = try await f.outsider.session.setRole(.viewer, for: person.address, in: team) }
            #expect(await Outcome.of { try await f.viewer.session.removeMember(f.member.ref, from: team) } == .denied)
            try await f.viewer.session.removeMember(f.viewer.ref, from: team)
            try await f.member.session.removeMember(.email(f.member.user.email.uppercased()), from: team)
            #expect(await Outcome.of { _ = try await f.viewer.session.team(team) } == .notFound)
            #expect(await Outcome.of { _ = try await f.member.session.team(team) } == .notFound)
            #expect(try await f.outsider.session.members(of: team).map(\.user.id) == [f.outsider.user.id])
            // In the main team a viewer leaves as well; the members left see it.
            try await f.viewer.session.removeMember(f.viewer.ref, from: f.team)
            #expect(try await !f.owner.session.members(of: f.team).contains { $0.user.id == f.viewer.user.id })
        },
    ]
}
