import CommandLineToolkit
import TaskCore
import TaskbaseWire

/// `taskctl user ...`: provisioning, for whoever runs the installation (no `--as` needed).
enum UserCommands {
    /// The `user` command group.
    static let command = Command(
        "user", abstract: "Provision users: add, list, disable, enable.",
        discussion: "User commands are operator calls: they need database access, not an acting user.",
        subcommands: [add, list, setDisabled("disable", true), setDisabled("enable", false)])

    static let add = Command(
        "add", abstract: "Create a user.",
        discussion: "Example: taskctl user add ann@example.com --name \"Ann Lee\". An email already taken exits 5.",
        positionals: [SharedDeclarations.email],
        options: [Option("name", help: "The name shown in lists.", isRequired: true)],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let service = try await invocation.openService()
            let user = try await service.createUser(
                email: invocation.values.requiredString("email"), displayName: invocation.values.requiredString("name"))
            try invocation.write(format == .json ? try JSONOutput.encode(UserDocument(user)) : "created " + UserOutput.line(user))
        })

    static let list = Command(
        "list", abstract: "List every user, by email.",
        flags: [SharedDeclarations.csv],
        run: Invocation.action { invocation in
            let format = try invocation.format(allowsCSV: true)
            let users = try await invocation.openService().users()
            try invocation.write(try UserOutput.list.render(users, as: format) { users.map(UserDocument.init) })
        })

    static func setDisabled(_ name: String, _ disabled: Bool) -> Command {
        Command(
            name,
            abstract: disabled ? "Disable a user: they can do nothing until enabled again; their history stays." : "Enable a disabled user again.",
            positionals: [SharedDeclarations.email],
            run: Invocation.action { invocation in
                let format = try invocation.format()
                let service = try await invocation.openService()
                let user = try await service.setUserDisabled(invocation.values.userRef("email"), disabled)
                try invocation.write(format == .json ? try JSONOutput.encode(UserDocument(user)) : UserOutput.line(user))
            })
    }
}
