import CommandLineToolkit
import TaskCore
import TaskbaseWire

/// `taskctl user ...`: provisioning, an operator's action. With `--as` the operator named
/// acts (anyone else is refused, exit 4); without it the command runs with the database
/// login's own rights, which only the database's administrator has: that is how the first
/// operator is made (`user add EMAIL --name N --operator`).
enum UserCommands {
    /// The `user` command group.
    static let command = Command(
        "user", abstract: "Provision users: add, list, disable, enable (operators).",
        discussion: """
            User commands are operator actions. With --as (or TASKBASE_ACTOR) the user named must be \
            an enabled operator, or the command exits 4. Without an acting user the command runs with \
            the database login's own rights: the database's administrator (the schema's owner) may, \
            the runtime login may not (exit 4). Bootstrap the first operator that way: \
            taskctl user add ops@example.com --name Ops --operator.
            """,
        subcommands: [add, list, setDisabled("disable", true), setDisabled("enable", false)])

    static let add = Command(
        "add", abstract: "Create a user.",
        discussion: "Example: taskctl user add ann@example.com --name \"Ann Lee\" --as ops@example.com. An email already taken exits 5.",
        positionals: [SharedDeclarations.email],
        options: [Option("name", help: "The name shown in lists.", isRequired: true)],
        flags: [Flag("operator", help: "Make the user an operator, who provisions users.")],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let service = try await invocation.openService()
            let user = try await service.createUser(
                email: invocation.values.requiredString("email"), displayName: invocation.values.requiredString("name"),
                isOperator: invocation.values.flag("operator"), as: invocation.optionalActor())
            try invocation.write(format == .json ? try JSONOutput.encode(UserDocument(user)) : "created " + UserOutput.line(user))
        })

    static let list = Command(
        "list", abstract: "List every user, by email.",
        flags: [SharedDeclarations.csv],
        run: Invocation.action { invocation in
            let format = try invocation.format(allowsCSV: true)
            let users = try await invocation.openService().users(as: invocation.optionalActor())
            try invocation.write(try UserOutput.list.render(users, as: format) { users.map(UserDocument.init) })
        })

    static func setDisabled(_ name: String, _ disabled: Bool) -> Command {
        Command(
            name,
            abstract: disabled
                ? "Disable a user: they can do nothing until enabled again; their history stays. A team's last enabled owner cannot be disabled."
                : "Enable a disabled user again.",
            positionals: [SharedDeclarations.email],
            run: Invocation.action { invocation in
                let format = try invocation.format()
                let service = try await invocation.openService()
                let user = try await service.setUserDisabled(invocation.values.userRef("email"), disabled, as: invocation.optionalActor())
                try invocation.write(format == .json ? try JSONOutput.encode(UserDocument(user)) : UserOutput.line(user))
            })
    }
}
