import Foundation
import TaskbaseTestSupport
import Testing

@Suite("taskctl user and team, as a process against PostgreSQL")
struct UserAndTeamCommandTests {
    @Test("user add, list, disable and enable; a disabled user can do nothing")
    func users() async throws {
        let fixture = try await Fixture.make()
        let email = fixture.email("new")
        let added = try await fixture.expectSuccess(["--json", "user", "add", email.uppercased(), "--name", " New Person "]).object()
        #expect(added["email"] as? String == email)
        #expect(added["display_name"] as? String == "New Person")
        #expect(added["disabled"] as? Bool == false)
        #expect(added["operator"] as? Bool == false)
        #expect(Set(added.keys) == ["id", "email", "display_name", "disabled", "operator", "created_at"])

        let list = try await fixture.expectSuccess(["user", "list"])
        #expect(list.standardOutput.hasPrefix("EMAIL "))
        #expect(list.standardOutput.contains(email))
        let json = try await fixture.expectSuccess(["user", "list", "--json"]).objects()
        #expect(json.contains { $0["email"] as? String == email })
        let csv = try await fixture.expectSuccess(["user", "list", "--csv"])
        #expect(csv.standardOutput.hasPrefix("id,email,display_name,disabled,operator,created_at\r\n"))

        let disabled = try await fixture.expectSuccess(["user", "disable", fixture.member])
        #expect(disabled.standardOutput.contains("disabled"))
        try await fixture.expectFailure(4, ["task", "list", "--team", fixture.team], as: fixture.member)
        try await fixture.expectSuccess(["user", "enable", fixture.member])
        try await fixture.expectSuccess(["task", "list", "--team", fixture.team], as: fixture.member)

        try await fixture.expectFailure(5, ["user", "add", email, "--name", "Again"])
        try await fixture.expectFailure(6, ["user", "add", "not-an-email", "--name", "X"])
        try await fixture.expectFailure(1, ["user", "disable", fixture.email("nobody")])
    }

    @Test("provisioning as anyone but an operator exits 4; the database's administrator bootstraps an operator, who provisions")
    func operators() async throws {
        let fixture = try await Fixture.make()
        // The reproductions: a viewer disabled the team's owner; a disabled user re-enabled himself.
        try await fixture.expectFailure(4, ["user", "disable", fixture.owner], as: fixture.viewer)
        try await fixture.expectFailure(4, ["user", "add", fixture.email("sneak"), "--name", "Sneak"], as: fixture.owner)
        try await fixture.expectFailure(4, ["user", "list"], as: fixture.admin)
        try await fixture.expectSuccess(["user", "disable", fixture.member])
        try await fixture.expectFailure(4, ["user", "enable", fixture.member], as: fixture.member)
        #expect(try await fixture.show(fixture.addTask("Still", as: fixture.admin))["title"] as? String == "Still")

        let ops = fixture.email("ops")
        let made = try await fixture.expectSuccess(["--json", "user", "add", ops, "--name", "Ops", "--operator"]).object()
        #expect(made["operator"] as? Bool == true)
        try await fixture.expectSuccess(["user", "enable", fixture.member], as: ops)
        let added = try await fixture.expectSuccess(["--json", "user", "add", fixture.email("hired"), "--name", "Hired"], as: ops).object()
        #expect(added["operator"] as? Bool == false)
        #expect(try await fixture.expectSuccess(["user", "list", "--json"], as: ops).objects().contains { $0["email"] as? String == ops })
        try await fixture.expectFailure(1, ["task", "list", "--team", fixture.team], as: ops)
    }

    @Test("a team keeps an enabled owner: its last enabled owner cannot step down or be disabled (exit 6)")
    func lastEnabledOwner() async throws {
        let fixture = try await Fixture.make()
        try await fixture.expectSuccess(["team", "set-role", fixture.team, fixture.admin, "owner"], as: fixture.owner)
        try await fixture.expectSuccess(["user", "disable", fixture.admin])
        try await fixture.expectFailure(6, ["team", "set-role", fixture.team, fixture.owner, "admin"], as: fixture.owner)
        let leaving = try await fixture.expectFailure(6, ["team", "remove-member", fixture.team, fixture.owner], as: fixture.owner)
        #expect(leaving.standardError.contains("invalid user: team \(fixture.team) must keep at least one enabled owner"), "\(leaving)")
        try await fixture.expectFailure(6, ["user", "disable", fixture.owner])
        try await fixture.expectSuccess(["task", "list", "--team", fixture.team], as: fixture.owner)
    }

    @Test("team create, list, show with its summary, and the members")
    func teams() async throws {
        let fixture = try await Fixture.make()
        let created = try await fixture.expectSuccess(
            ["--json", "team", "create", "X" + fixture.suffix.lowercased(), "--name", "Other", "--owner", fixture.member]).object()
        #expect(created["key"] as? String == "X" + fixture.suffix)
        #expect(created["role"] as? String == "owner")
        #expect(Set(created.keys) == ["id", "key", "name", "created_at", "role"])
        try await fixture.expectFailure(5, ["team", "create", fixture.team, "--name", "Taken"], as: fixture.owner)
        try await fixture.expectFailure(6, ["team", "create", "9BAD", "--name", "Bad key"], as: fixture.owner)

        let teams = try await fixture.expectSuccess(["--json", "team", "list"], as: fixture.member).objects()
        #expect(Set(teams.compactMap { $0["key"] as? String }) == [fixture.team, "X" + fixture.suffix])
        #expect(teams.first { $0["key"] as? String == fixture.team }?["role"] as? String == "member")

        _ = try await fixture.addTask("Overdue", ["--due=-2d", "--assignee", fixture.member])
        _ = try await fixture.addTask("Docs", ["--category", "Docs"])
        let show = try await fixture.expectSuccess(["team", "show", fixture.team], as: fixture.viewer)
        #expect(show.standardOutput.contains("your role  viewer"))
        #expect(show.standardOutput.contains("tasks      2 (open 2, in_progress 0, done 0)"))
        #expect(show.standardOutput.contains("overdue    1"))
        #expect(show.standardOutput.contains("Uncategorized"))
        let summary = try await fixture.expectSuccess(["--json", "team", "show", fixture.team], as: fixture.viewer).object()
        #expect(summary["total"] as? Int == 2)
        #expect(summary["overdue"] as? Int == 1)
        #expect((summary["by_status"] as? [String: Int]) == ["open": 2, "in_progress": 0, "done": 0])
        let categories = try #require(summary["by_category"] as? [[String: Any]])
        #expect(Set(categories.compactMap { $0["name"] as? String }) == ["Docs", "Uncategorized"])
        let assignees = try #require(summary["open_by_assignee"] as? [[String: Any]])
        #expect(assignees.contains { $0["name"] as? String == fixture.member && $0["count"] as? Int == 1 })

        try await fixture.expectFailure(1, ["team", "show", fixture.team], as: fixture.outsider)
        try await fixture.expectFailure(2, ["team", "show", "no!"], as: fixture.owner)
    }

    @Test("memberships: add, set-role, remove, and who may do it")
    func memberships() async throws {
        let fixture = try await Fixture.make()
        let newcomer = fixture.outsider
        let added = try await fixture.expectSuccess(["--json", "team", "add-member", fixture.team, newcomer], as: fixture.admin).object()
        #expect(added["role"] as? String == "member")
        #expect(Set(added.keys) == ["user_id", "email", "display_name", "role", "disabled", "created_at"])
        try await fixture.expectFailure(5, ["team", "add-member", fixture.team, newcomer, "--role", "viewer"], as: fixture.admin)

        let changed = try await fixture.expectSuccess(["team", "set-role", fixture.team, newcomer, "viewer"], as: fixture.admin)
        #expect(changed.standardOutput == "\(newcomer) is a viewer of team \(fixture.team)\n")
        try await fixture.expectFailure(4, ["team", "set-role", fixture.team, newcomer, "owner"], as: fixture.admin)
        try await fixture.expectFailure(4, ["team", "add-member", fixture.team, fixture.email("owner"), "--role", "viewer"], as: fixture.member)
        try await fixture.expectFailure(1, ["team", "set-role", fixture.team, fixture.email("nobody"), "admin"], as: fixture.admin)
        try await fixture.expectFailure(2, ["team", "set-role", fixture.team, newcomer, "boss"], as: fixture.admin)
        try await fixture.expectFailure(6, ["team", "set-role", fixture.team, fixture.owner, "admin"], as: fixture.owner)

        let members = try await fixture.expectSuccess(["--json", "team", "members", fixture.team], as: fixture.viewer).objects()
        #expect(
            Dictionary(uniqueKeysWithValues: members.map { ($0["email"] as? String ?? "", $0["role"] as? String ?? "") }) == [
                fixture.owner: "owner", fixture.admin: "admin", fixture.member: "member", fixture.viewer: "viewer", newcomer: "viewer",
            ])
        let table = try await fixture.expectSuccess(["team", "members", fixture.team], as: fixture.viewer)
        #expect(table.standardOutput.hasPrefix("EMAIL "))

        // A removal says how many of the member's tasks in the team it unassigned; leaving too.
        _ = try await fixture.addTask("Newcomer's", ["--assignee", newcomer])
        for title in ["Member's", "Member's too"] { _ = try await fixture.addTask(title, ["--assignee", fixture.member]) }
        let removed = try await fixture.expectSuccess(["team", "remove-member", fixture.team, newcomer.uppercased()], as: fixture.admin)
        #expect(removed.standardOutput == "removed \(newcomer) from \(fixture.team); unassigned 1 task\n")
        try await fixture.expectFailure(1, ["team", "remove-member", fixture.team, newcomer], as: fixture.admin)
        try await fixture.expectFailure(1, ["team", "members", fixture.team], as: newcomer)
        let left = try await fixture.expectSuccess(["--json", "team", "remove-member", fixture.team, fixture.member], as: fixture.member).object()
        #expect(left as NSDictionary == ["team": fixture.team, "removed": fixture.member, "unassigned_tasks": 2])
        let viewerLeft = try await fixture.expectSuccess(["team", "remove-member", fixture.team, fixture.viewer], as: fixture.viewer)
        #expect(viewerLeft.standardOutput == "removed \(fixture.viewer) from \(fixture.team); unassigned 0 tasks\n")
    }

    @Test("through a runtime login (as deployments run taskctl), an admin adds, changes and removes a member; a member is refused")
    func membershipsOverTheRuntimeLogin() async throws {
        let fixture = try await Fixture.make()
        let database = try await TestDatabases.shared.value
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            // Directly, also in the suite's PgBouncer pass: a login made for one test is not in
            // PgBouncer's list of users.
            let environment = ["DATABASE_URL": TestDatabases.connectionString(login.config(for: database))]
            func run(_ arguments: [String], as actor: String) async throws -> TaskctlResult {
                try await TaskctlProcess.run(arguments, as: actor, environment: environment)
            }
            // The outsider shares no team with the admin: found as the admin may see them.
            let added = try await run(["team", "add-member", fixture.team, fixture.outsider, "--role", "viewer"], as: fixture.admin)
            #expect(added.exitCode == 0, "\(added)")
            let again = try await run(["team", "add-member", fixture.team, fixture.outsider], as: fixture.admin)
            #expect(again.exitCode == 5, "\(again)")
            let changed = try await run(["team", "set-role", fixture.team, fixture.outsider, "member"], as: fixture.admin)
            #expect(changed.standardOutput == "\(fixture.outsider) is a member of team \(fixture.team)\n", "\(changed)")
            let refused = try await run(["team", "add-member", fixture.team, fixture.email("nobody")], as: fixture.member)
            #expect(refused.exitCode == 4, "\(refused)")
            let removed = try await run(["team", "remove-member", fixture.team, fixture.outsider], as: fixture.admin)
            #expect(removed.exitCode == 0, "\(removed)")
            let stranger = try await run(["team", "set-role", fixture.team, fixture.outsider, "admin"], as: fixture.admin)
            #expect(stranger.exitCode == 1 && stranger.standardError.contains("add them with team add-member"), "\(stranger)")
        }
    }

    @Test("through the runtime login, user and token commands with no acting user exit 4 saying why; as an operator they run")
    func provisioningOverTheRuntimeLogin() async throws {
        let fixture = try await Fixture.make()
        let ops = fixture.email("ops")
        try await fixture.expectSuccess(["user", "add", ops, "--name", "Ops", "--operator"])
        let database = try await TestDatabases.shared.value
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            let environment = ["DATABASE_URL": TestDatabases.connectionString(login.config(for: database))]
            // Row security shows this login no user when nobody acts: it printed an empty list,
            // "user ... not found" for users who exist, or the insert policy's own words.
            for arguments in [
                ["user", "list"], ["user", "disable", fixture.member], ["user", "add", fixture.email("new"), "--name", "New"],
                ["token", "list", fixture.member],
            ] {
                let refused = try await TaskctlProcess.run(arguments, environment: environment)
                #expect(refused.exitCode == 4 && refused.standardOutput.isEmpty, "\(arguments): \(refused)")
                #expect(refused.standardError.contains("the runtime login): act as an operator (--as EMAIL"), "\(arguments): \(refused)")
            }
            let listed = try await TaskctlProcess.run(["user", "list", "--json"], as: ops, environment: environment)
            #expect(listed.exitCode == 0 && listed.standardOutput.contains(fixture.member), "\(listed)")
        }
    }

    @Test("owners rename and delete a team; delete wants --yes")
    func renameAndDelete() async throws {
        let fixture = try await Fixture.make()
        _ = try await fixture.addTask("Goes with the team")
        try await fixture.expectFailure(4, ["team", "rename", fixture.team, "Admins' team"], as: fixture.admin)
        let renamed = try await fixture.expectSuccess(["--json", "team", "rename", fixture.team, "Renamed"], as: fixture.owner).object()
        #expect(renamed["name"] as? String == "Renamed" && renamed["key"] as? String == fixture.team)
        try await fixture.expectFailure(2, ["team", "delete", fixture.team], as: fixture.owner)
        try await fixture.expectFailure(4, ["team", "delete", fixture.team, "--yes"], as: fixture.admin)
        #expect(
            try await fixture.expectSuccess(["team", "delete", fixture.team, "--yes"], as: fixture.owner).standardOutput
                == "deleted team \(fixture.team)\n")
        try await fixture.expectFailure(1, ["team", "show", fixture.team], as: fixture.owner)
    }
}
