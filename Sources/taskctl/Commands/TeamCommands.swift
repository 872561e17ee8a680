import CommandLineToolkit
import SafeText
import TaskCore
import TaskbaseWire

/// `taskctl team ...`: teams and memberships, acting as `--as EMAIL`.
enum TeamCommands {
    /// The `team` command group.
    static let command = Command(
        "team", abstract: "Create teams, see their summary, manage members and roles.",
        discussion: "Roles: viewers read, members create and edit tasks, admins manage members, owners manage the team and its owners.",
        subcommands: [create, list, show, addMember, setRole, removeMember, members, rename, delete])

    /// `team create`.
    static let create = Command(
        "create", abstract: "Create a team; its owner is --owner, else the acting user.",
        discussion: "Example: taskctl team create CORE --name \"Core platform\" --owner ann@example.com. A key already taken exits 5.",
        positionals: [Positional("key", valueName: "KEY", help: "The new team's key: 2 to 10 letters and digits, starting with a letter.")],
        options: [
            Option("name", help: "The team's name.", isRequired: true),
            Option("owner", valueName: "EMAIL", help: "The first owner (default: the acting user)."),
        ],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let owner = try invocation.values.string("owner").map(UserRef.init) ?? invocation.actor()
            let service = try await invocation.openService()
            let team = try await service.createTeam(
                key: invocation.values.requiredString("key"), name: invocation.values.requiredString("name"), as: owner)
            try invocation.write(
                format == .json
                    ? try JSONOutput.encode(TeamDocument(team, role: .owner))
                    : "created team \(team.key) (\(TerminalText.clean(team.name))), owned by \(TerminalText.clean(owner.description))\n")
        })

    /// `team list`.
    static let list = Command(
        "list", abstract: "List the teams the acting user belongs to, with their role.",
        flags: [SharedDeclarations.csv],
        run: Invocation.action { invocation in
            let format = try invocation.format(allowsCSV: true)
            let actor = try invocation.actor()
            let teams = try await invocation.openService().teams(as: actor)
            try invocation.write(try TeamOutput.list.render(teams, as: format) { teams.map { TeamDocument($0.team, role: $0.role) } })
        })

    /// `team show`.
    static let show = Command(
        "show", abstract: "Show a team at a glance: tasks by status and category, overdue, open tasks per assignee.",
        positionals: [SharedDeclarations.teamKey],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let (key, actor) = (try invocation.values.teamKey(), try invocation.actor())
            let service = try await invocation.openService()
            let membership = try await service.team(key, as: actor)
            let summary = try await service.summary(of: key, as: actor)
            try invocation.write(
                format == .json
                    ? try JSONOutput.encode(SummaryDocument(summary, role: membership.role))
                    : SummaryOutput.render(summary, role: membership.role))
        })

    /// `team add-member`.
    static let addMember = Command(
        "add-member", abstract: "Add a user to a team (admins; owners to add an owner).",
        discussion: "A user who is already a member exits 5: change their role with set-role.",
        positionals: [SharedDeclarations.teamKey, SharedDeclarations.email],
        options: [Option("role", help: "Their role.", type: .choice(of: Role.self), default: Role.member.rawValue)],
        run: Invocation.action { invocation in
            try await changeMembership(invocation, role: invocation.values.value("role", as: Role.self) ?? .member, adding: true)
        })

    /// `team set-role`.
    static let setRole = Command(
        "set-role", abstract: "Change a member's role (admins; owners for anything touching the owner role).",
        discussion: "A team keeps at least one enabled owner: the last one cannot step down (exit 6).",
        positionals: [
            SharedDeclarations.teamKey, SharedDeclarations.email,
            Positional("role", valueName: "ROLE", type: .choice(of: Role.self), help: "The new role."),
        ],
        run: Invocation.action { invocation in
            try await changeMembership(invocation, role: invocation.values.value("role", as: Role.self) ?? .member, adding: false)
        })

    /// `team remove-member`.
    static let removeMember = Command(
        "remove-member", abstract: "Remove a member from a team (admins; owners to remove an owner; anyone themself); their tasks are unassigned.",
        positionals: [SharedDeclarations.teamKey, SharedDeclarations.email],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let (key, actor, user) = (try invocation.values.teamKey(), try invocation.actor(), invocation.values.userRef("email"))
            let removal = try await invocation.openService().removeMember(user, from: key, as: actor)
            try invocation.write(
                format == .json
                    ? try JSONOutput.encode(MemberRemovalOutput(removal))
                    : "removed \(TerminalText.clean(removal.user.email)) from \(key); unassigned \(Counted.phrase(removal.unassignedTasks, "task"))\n"
            )
        })

    /// `team members`.
    static let members = Command(
        "members", abstract: "List a team's members and their roles.",
        positionals: [SharedDeclarations.teamKey],
        flags: [SharedDeclarations.csv],
        run: Invocation.action { invocation in
            let format = try invocation.format(allowsCSV: true)
            let (key, actor) = (try invocation.values.teamKey(), try invocation.actor())
            let members = try await invocation.openService().members(of: key, as: actor)
            try invocation.write(try TeamOutput.members.render(members, as: format) { members.map(MemberDocument.init) })
        })

    /// `team rename`.
    static let rename = Command(
        "rename", abstract: "Rename a team (owners); its key never changes.",
        positionals: [SharedDeclarations.teamKey, Positional("name", help: "The new name.")],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let (key, actor) = (try invocation.values.teamKey(), try invocation.actor())
            let team = try await invocation.openService().renameTeam(key, to: invocation.values.requiredString("name"), as: actor)
            try invocation.write(
                format == .json
                    ? try JSONOutput.encode(TeamDocument(team, role: .owner))
                    : "renamed team \(team.key) to \(TerminalText.clean(team.name))\n")
        })

    /// `team delete`.
    static let delete = Command(
        "delete", abstract: "Delete a team with all its tasks and their history (owners).",
        discussion: "There is no undo: the command refuses to run without --yes. Export the team first to keep its tasks.",
        positionals: [SharedDeclarations.teamKey],
        flags: [Flag("yes", help: "Confirm that the team and every task in it go.")],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let (key, actor) = (try invocation.values.teamKey(), try invocation.actor())
            guard invocation.values.flag("yes") else {
                throw UsageError("deleting team \(key) deletes all its tasks and their history: repeat with --yes")
            }
            try await invocation.openService().deleteTeam(key, as: actor)
            try invocation.write(format == .json ? try JSONOutput.encode(["deleted": key.rawValue]) : "deleted team \(key)\n")
        })

    /// Adds a member (refusing an existing one) or changes a member's role (refusing a stranger),
    /// so that each command does what its name says; an actor who may not manage members is
    /// left to the service's refusal (exit 4).
    private static func changeMembership(_ invocation: Invocation, role: Role, adding: Bool) async throws {
        let format = try invocation.format()
        let (key, actor, user) = (try invocation.values.teamKey(), try invocation.actor(), invocation.values.userRef("email"))
        let service = try await invocation.openService()
        // Judged among the members the actor may list: the user themself is found by the
        // service as the actor may see them (over the runtime login, a lookup without an
        // actor sees nobody).
        let members = try await service.members(of: key, as: actor)
        let actorRole = try await service.team(key, as: actor).role
        if actorRole >= TeamAction.manageMembers.minimumRole {
            let current = members.first { user.names($0.user) }
            if adding, let current {
                throw TaskError.alreadyExists(
                    what: "\(current.user.email) in team \(key) (role \(current.role.rawValue); change it with team set-role)")
            }
            if !adding, current == nil {
                throw TaskError.notFound(what: "member \(user.written) of team \(key) (add them with team add-member)")
            }
        }
        let member = try await service.setRole(role, for: user, in: key, as: actor)
        try invocation.write(
            format == .json
                ? try JSONOutput.encode(MemberDocument(member))
                : "\(TerminalText.clean(member.user.email)) is \(member.role.withArticle) of team \(key)\n"
        )
    }
}
