import TaskCore
import Testing

extension TaskStoreContract {
    static let membershipChecks: [ContractCheck] = [
        ContractCheck("two owners demoting each other at once: the store refuses the change judged before the demotion, as the service would") {
            f in
            // The service judges a change before the store takes the team's lock; in between,
            // the actor may be demoted. The store judges again (Postgres once answered the row
            // security's refusal, a 500 over HTTP; memory applied the stale change).
            let owner = try await f.service.user(f.owner), admin = try await f.service.user(f.admin)
            for demoted in [Role.member, .admin] {
                let team = try await f.makeTeam()
                try await f.service.setRole(.owner, for: f.admin, in: team, as: f.owner)
                let stale = try await f.service.team(team, as: f.admin).team.id
                try await f.service.setRole(demoted, for: f.admin, in: team, as: f.owner)
                await #expect {
                    try await f.store.setRole(.member, of: owner, in: stale, actor: admin.id, at: ContractFixture.start)
                } throws: { error in
                    guard case .permissionDenied(let what, let why) = error as? TaskError else { return false }
                    return what == "change the owners of team \(team)" && why.contains("is \(demoted.withArticle)")
                }
                let members = try await f.service.members(of: team, as: f.owner)
                #expect(members.first { $0.user.id == owner.id }?.role == .owner)
                #expect(members.first { $0.user.id == admin.id }?.role == demoted)
            }
            // One demoted to viewer, judged as an admin before, may not manage members at all.
            let team = try await f.makeTeam()
            let stale = try await f.service.team(team, as: f.admin).team.id
            try await f.service.setRole(.viewer, for: f.admin, in: team, as: f.owner)
            let member = try await f.service.user(f.member)
            await #expect(throws: TaskError.self) {
                try await f.store.setRole(nil, of: member, in: stale, actor: admin.id, at: ContractFixture.start)
            }
            #expect(try await f.service.members(of: team, as: f.owner).contains { $0.user.id == member.id })
        },
        ContractCheck("only an owner grants or takes away the owner role, and the last owner cannot leave") { f in
            #expect(await Outcome.of { try await f.service.setRole(.owner, for: f.member, in: f.team, as: f.admin) } == .denied)
            #expect(await Outcome.of { try await f.service.removeMember(f.owner, from: f.team, as: f.admin) } == .denied)
            try await f.service.removeMember(f.disabled, from: f.team, as: f.owner)
            #expect(await Outcome.of { try await f.service.setRole(.admin, for: f.owner, in: f.team, as: f.owner) } == .invalid(field: "role"))
            #expect(await Outcome.of { try await f.service.removeMember(f.owner, from: f.team, as: f.owner) } == .invalid(field: "user"))
            try await f.service.setRole(.owner, for: f.admin, in: f.team, as: f.owner)
            try await f.service.removeMember(f.owner, from: f.team, as: f.owner)
            #expect(await Outcome.of { _ = try await f.service.listTasks(in: f.team, as: f.owner) } == .notFound)
        },
        ContractCheck("a member removed or leaving is unassigned from their tasks as an edit by whoever removed them, each in history and the feed") {
            f in
            // Postgres once cleared the assignee through the foreign key's SET NULL: no new
            // version (a stale ETag still matched), no history, nothing in the feed; memory
            // kept the assignee of someone no longer in the team.
            let member = try await f.service.user(f.member, as: f.owner), viewer = try await f.service.user(f.viewer, as: f.owner)
            var toMember = TaskDraftFields(), toViewer = TaskDraftFields()
            toMember.assignee = f.member
            toViewer.assignee = f.viewer
            let first = try await f.makeTask("First", toMember), untouched = try await f.makeTask("Untouched")
            let second = try await f.makeTask("Second", toMember), viewers = try await f.makeTask("Viewer's", toViewer)
            let start = try await f.service.changes(in: f.team, after: 0, as: f.owner)
            let before = try await TaskStoreContract.collect(4, from: start)
            let feed = try await f.service.changes(in: f.team, after: before.last?.sequence, as: f.owner)

            try await f.service.removeMember(f.member, from: f.team, as: f.admin)
            let admin = try await f.service.user(f.admin, as: f.owner)
            for task in [first, second] {
                let now = try await f.service.task(task.key, as: f.owner)
                #expect(now.assigneeID == nil && now.version == task.version + 1 && now.updatedBy == admin.id, "\(now)")
                let last = try await f.service.history(of: task.key, as: f.owner).last
                #expect(last?.kind == .updated && last?.actorID == admin.id && last?.version == now.version)
                #expect(last?.changes == [FieldChange(field: .assignee, old: member.id.description, new: nil)], "\(String(describing: last))")
            }
            #expect(try await f.service.task(untouched.key, as: f.owner) == untouched)
            // A viewer may be assigned and may leave: unassigned in their own name.
            try await f.service.removeMember(f.viewer, from: f.team, as: f.viewer)
            let left = try await f.service.task(viewers.key, as: f.owner)
            #expect(left.assigneeID == nil && left.version == 2 && left.updatedBy == viewer.id, "\(left)")
            let events = try await TaskStoreContract.collect(3, from: feed).changes
            #expect(events.map(\.key) == [first.key, second.key, viewers.key])
            #expect(events.map(\.kind) == [.updated, .updated, .updated] && events.map(\.version) == [2, 2, 2])
            #expect(events.map(\.actorID) == [admin.id, admin.id, viewer.id])
        },
        ContractCheck("a removal says how many of the member's tasks in the team it unassigned, whoever removes them; other teams' are not counted") {
            f in
            // A removal unassigned silently: nobody was told how many tasks lost their assignee.
            // A viewer or member leaving on their own goes, in Postgres, through 0038's function.
            let elsewhere = try await f.makeTeam(), extra = try await f.makeUser()
            try await f.service.setRole(.member, for: extra, in: f.team, as: f.owner)
            var toMember = TaskDraftFields(), toViewer = TaskDraftFields()
            toMember.assignee = f.member
            toViewer.assignee = f.viewer
            for title in ["One", "Two", "Three"] { try await f.makeTask(title, toMember) }
            try await f.makeTask("Viewer's", toViewer)
            try await f.makeTask("Nobody's")
            let membersElsewhere = try await f.makeTask("Member's elsewhere", in: elsewhere, toMember)
            let viewersElsewhere = try await f.makeTask("Viewer's elsewhere", in: elsewhere, toViewer)
            let member = try await f.service.user(f.member, as: f.owner), viewer = try await f.service.user(f.viewer, as: f.owner)

            let removed = try await f.service.removeMember(f.member, from: f.team, as: f.admin)
            #expect(removed == MemberRemoval(team: f.team, user: member, unassignedTasks: 3))
            let left = try await f.service.removeMember(f.viewer, from: f.team, as: f.viewer)
            #expect(left == MemberRemoval(team: f.team, user: viewer, unassignedTasks: 1))
            #expect(try await f.service.removeMember(extra, from: f.team, as: f.admin).unassignedTasks == 0)
            #expect(try await f.allTasks().allSatisfy { $0.assigneeID == nil })
            for task in [membersElsewhere, viewersElsewhere] { #expect(try await f.service.task(task.key, as: f.owner) == task) }
            // A member leaving on their own counts alike.
            #expect(try await f.service.removeMember(f.member, from: elsewhere, as: f.member).unassignedTasks == 1)
            #expect(try await f.service.task(viewersElsewhere.key, as: f.owner) == viewersElsewhere)
        },
        ContractCheck("a member removed twice at once is removed once: the store refuses the removal of one no longer a member") { f in
            // The service reads the members first; two removals racing both passed that read,
            // and both answered done (204) while one did nothing.
            let member = try await f.service.user(f.member, as: f.owner), admin = try await f.service.user(f.admin, as: f.owner)
            let team = try await f.service.team(f.team, as: f.owner).team.id
            try await f.store.setRole(nil, of: member, in: team, actor: admin.id, at: f.service.clock.now())
            #expect(
                await Outcome.of { try await f.store.setRole(nil, of: member, in: team, actor: admin.id, at: f.service.clock.now()) } == .notFound)
            #expect(
                await Outcome.of { try await f.store.setRole(nil, of: member, in: team, actor: member.id, at: f.service.clock.now()) } == .notFound)
        },
        ContractCheck("two owners stepping down at the same time leave the team one owner") { f in
            try await f.service.setRole(.owner, for: f.admin, in: f.team, as: f.owner)
            try await f.service.removeMember(f.disabled, from: f.team, as: f.owner)
            let outcomes = await withTaskGroup(of: Outcome.self) { group in
                for (actor, target) in [(f.owner, f.admin), (f.admin, f.owner)] {
                    group.addTask { await Outcome.of { try await f.service.setRole(.member, for: target, in: f.team, as: actor) } }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let owners = try await f.service.members(of: f.team, as: f.member).filter { $0.role == .owner }
            #expect(owners.count == 1)
            #expect(outcomes.contains(.ok))
        },
        ContractCheck("members list with roles, teams list the actor's own, and unknown people are not found") { f in
            let members = try await f.service.members(of: f.team, as: f.viewer)
            let roles = Dictionary(uniqueKeysWithValues: members.map { ($0.user.email, $0.role) })
            for (user, role) in f.cast where role != nil {
                guard case .email(let email) = user else { continue }
                #expect(roles[email] == role)
            }
            #expect(members.count == 5)
            let other = try await f.makeTeam()
            #expect(try await f.service.teams(as: f.viewer).map(\.team.key).sorted() == [f.team, other].sorted())
            #expect(try await f.service.teams(as: f.outsider).isEmpty)
            let stranger = UserRef.email("nobody.\(f.uniqueSuffix().lowercased())@example.com")
            #expect(await Outcome.of { try await f.service.setRole(.viewer, for: stranger, in: f.team, as: f.owner) } == .notFound)
            #expect(await Outcome.of { try await f.service.removeMember(f.outsider, from: f.team, as: f.owner) } == .notFound)
            #expect(await Outcome.of { _ = try await f.service.createTeam(key: f.team.rawValue, name: "Again", as: f.owner) } == .alreadyExists)
            if case .email(let email) = f.owner {
                #expect(
                    await Outcome.of { _ = try await f.service.createUser(email: " \(email.uppercased()) ", displayName: "Twin") } == .alreadyExists)
            }
        },
        ContractCheck("an email is one address however its accents are encoded: the decomposed é finds the user and is no second account") { f in
            let suffix = f.uniqueSuffix().lowercased()
            let composed = "jos\u{E9}.\(suffix)@example.com"
            let decomposed = "jose\u{301}.\(suffix)@example.com"
            let user = try await f.service.createUser(email: decomposed, displayName: "José")
            #expect(Array(user.email.unicodeScalars) == Array(composed.unicodeScalars), "stored composed (NFC)")
            #expect(try await f.service.user(.email(composed), as: .id(user.id)).id == user.id)
            #expect(try await f.service.user(.email("JOSE\u{301}.\(suffix)@example.com"), as: .id(user.id)).id == user.id)
            #expect(await Outcome.of { _ = try await f.service.createUser(email: composed, displayName: "Twin") } == .alreadyExists)
        },
        ContractCheck(
            "a conditional membership change is judged by the store as it makes it: a member added since is not overwritten, one removed is not added back; of racing adders only if absent, one wins"
        ) { f in
            // The HTTP API's `If-None-Match: *` and `If-Match: *` on a member's PUT: the service
            // judges them on its read, and the store again under the lock, where a change made
            // in between is seen. Before, no store took a condition: a member added a moment
            // earlier was overwritten.
            let team = try await f.makeTeam()
            let id = try await f.service.team(team, as: f.owner).team.id
            let owner = try await f.service.user(f.owner), outsider = try await f.service.user(f.outsider)
            let absent = MembershipCondition { $0 == nil }, present = MembershipCondition { $0 != nil }
            try await f.service.setRole(.viewer, for: f.outsider, in: team, as: f.owner)
            await #expect(throws: MembershipConditionFailed(current: Member(user: outsider, role: .viewer))) {
                try await f.store.setRole(.admin, of: outsider, in: id, actor: owner.id, at: ContractFixture.start, condition: absent)
            }
            #expect(try await f.service.members(of: team, as: f.owner).first { $0.user.id == outsider.id }?.role == .viewer)
            try await f.service.removeMember(f.outsider, from: team, as: f.owner)
            await #expect(throws: MembershipConditionFailed(current: nil)) {
                try await f.store.setRole(.admin, of: outsider, in: id, actor: owner.id, at: ContractFixture.start, condition: present)
            }
            #expect(try await !f.service.members(of: team, as: f.owner).contains { $0.user.id == outsider.id })
            try await f.store.setRole(.member, of: outsider, in: id, actor: owner.id, at: ContractFixture.start, condition: absent)
            #expect(try await f.service.members(of: team, as: f.owner).first { $0.user.id == outsider.id }?.role == .member)
            // Racing adds of one newcomer, each only if absent, with different roles: one is made.
            let newcomer = try await f.makeUser()
            let added = try await withThrowingTaskGroup(of: Role?.self) { group in
                for role in [Role.viewer, .member, .admin, .viewer, .member, .admin] {
                    group.addTask {
                        do {
                            _ = try await f.service.putMember(newcomer, role: role, in: team, as: f.owner, condition: absent)
                            return role
                        } catch is MembershipConditionFailed {
                            return nil
                        }
                    }
                }
                return try await group.reduce(into: [Role]()) { if let role = $1 { $0.append(role) } }
            }
            #expect(added.count == 1, "\(added)")
            let newcomerID = try await f.service.user(newcomer).id
            let kept = try await f.service.members(of: team, as: f.owner).first { $0.user.id == newcomerID }
            #expect(kept?.role == added.first)
        },
    ]
}
