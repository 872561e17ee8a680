import Foundation
import Testing
@testable import taskctl

@Suite("The command-line contract: help, version, usage, exit codes")
struct ProgramContractTests {
    @Test("--help on every command goes to stdout with exit 0; --version prints the version")
    func helpAndVersion() async throws {
        let help = try await TaskctlProcess.run(["task", "add", "--help"])
        #expect(help.exitCode == 0 && help.standardError.isEmpty)
        #expect(help.standardOutput.contains("Usage: taskctl task add --team KEY [<options>] TITLE"))
        #expect(help.standardOutput.contains("--due DATE"))
        let root = try await TaskctlProcess.run(["--help"])
        // Help wraps at the terminal width, so compare with the line breaks folded into spaces.
        #expect(root.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("Exit codes: 0 ok"))
        let version = try await TaskctlProcess.run(["--version"])
        #expect(version.exitCode == 0 && version.standardOutput == Taskctl.version + "\n")
    }

    @Test(
        "usage errors exit 2 with the message and the command's usage on stderr",
        arguments: [
            (["task", "show"], "missing required argument KEY-N", "Usage: taskctl task show [<options>] KEY-N"),
            (["task", "shwo"], "unknown subcommand 'shwo'", nil),
            (["task", "show", "CORE"], "invalid task key 'CORE': expected a key like CORE-42", "Usage: taskctl task show"),
            (["task", "add", "-t", "CORE", "T", "--due", "soonish"], "invalid value 'soonish' for '--due'", "Usage: taskctl task add"),
            (["task", "update", "CORE-1"], "nothing to change", "Usage: taskctl task update"),
            (["task", "list", "-t", "CORE", "--priority", "high"], "unknown option '--priority'", nil),
            (["task", "list", "-t", "CORE", "--json", "--csv"], "--json and --csv cannot be combined", nil),
            (["task"], "missing subcommand", "Create, list, show, edit"),
        ] as [([String], String, String?)])
    func usage(arguments: [String], message: String, usage: String?) async throws {
        let result = try await TaskctlProcess.run(arguments, as: "someone@example.com")
        #expect(result.exitCode == 2, "\(result)")
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix("taskctl: error: "), "\(result)")
        #expect(result.standardError.contains(message), "\(result)")
        if let usage { #expect(result.standardError.contains(usage), "\(result)") }
    }

    @Test("a team or task command without an acting user is a usage error naming --as and TASKBASE_ACTOR")
    func missingActor() async throws {
        let result = try await TaskctlProcess.run(["task", "show", "CORE-1"])
        #expect(result.exitCode == 2)
        #expect(result.standardError.hasPrefix("taskctl: error: this command acts as a user: pass --as EMAIL or set TASKBASE_ACTOR\n"))
    }

    @Test("an acting user given but empty is a usage error that says so and names where it came from")
    func emptyActor() async throws {
        let flag = try await TaskctlProcess.run(["task", "show", "CORE-1"], as: " ")
        #expect(flag.exitCode == 2)
        #expect(flag.standardError.hasPrefix("taskctl: error: the acting user (--as) is empty: pass --as EMAIL"), "\(flag)")
        // An empty variable is an unset one, as for every option's variable; spaces are a value.
        let variable = try await TaskctlProcess.run(["task", "show", "CORE-1"], environment: ["TASKBASE_ACTOR": "  "])
        #expect(variable.exitCode == 2)
        #expect(variable.standardError.hasPrefix("taskctl: error: the acting user (TASKBASE_ACTOR) is empty: pass --as EMAIL"), "\(variable)")
    }

    @Test("TASKBASE_ACTOR names the acting user when --as is absent")
    func actorFromEnvironment() async throws {
        let fixture = try await Fixture.make()
        let result = try await TaskctlProcess.run(["task", "add", "-t", fixture.team, "From env"], environment: ["TASKBASE_ACTOR": fixture.member])
        #expect(result.exitCode == 0, "\(result)")
        #expect(try await fixture.show("\(fixture.team)-1")["created_by"] as? String == fixture.member)
    }

    @Test("no server, or a bad configuration, exits 3 with one line that says where to look")
    func cannotConnect() async throws {
        for url in ["postgresql://nobody@127.0.0.1:1/nothing", "postgresql://[broken"] {
            let result = try await TaskctlProcess.run(["user", "list"], environment: ["DATABASE_URL": url])
            #expect(result.exitCode == 3, "\(result)")
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardError.hasPrefix("taskctl: error: "))
            #expect(result.standardError.hasSuffix("check DATABASE_URL, the PG* variables and .env\n"))
            #expect(result.standardError.filter { $0 == "\n" }.count == 1)
        }
    }

    @Test("each exit code of the command-line contract (docs/design.md) from a real refusal")
    func exitCodes() async throws {
        let fixture = try await Fixture.make()
        let key = try await fixture.addTask("Task")
        #expect(
            try await fixture.expectFailure(1, ["task", "show", "\(fixture.team)-99"], as: fixture.member).standardError
                == "taskctl: error: task \(fixture.team)-99 not found\n")
        try await fixture.expectFailure(1, ["task", "show", key], as: fixture.outsider)
        let ghost = try await fixture.expectFailure(1, ["task", "show", key], as: fixture.email("ghost"))
        #expect(
            ghost.standardError
                == "taskctl: error: the acting user (--as or TASKBASE_ACTOR), user \(fixture.email("ghost")), does not exist; "
                + "check the email, or have an operator add the user with taskctl user add\n")
        let stranger = try await fixture.expectFailure(1, ["team", "add-member", fixture.team, fixture.email("stranger")], as: fixture.owner)
        #expect(stranger.standardError == "taskctl: error: user \(fixture.email("stranger")) not found\n", "another user is named plainly")
        try await fixture.expectFailure(2, ["task", "show"], as: fixture.member)
        try await fixture.expectFailure(4, ["task", "done", key], as: fixture.viewer)
        try await fixture.expectFailure(5, ["task", "done", key, "--if-version", "7"], as: fixture.member)
        try await fixture.expectFailure(6, ["task", "update", key, "--title", "   "], as: fixture.member)
        try await fixture.expectFailure(6, ["task", "assign", key, fixture.outsider], as: fixture.member)
        _ = try await fixture.addTask("First", ["--external-id", "E1"])
        try await fixture.expectFailure(5, ["task", "add", "-t", fixture.team, "Second", "--external-id", "E1"], as: fixture.member)
    }
}
