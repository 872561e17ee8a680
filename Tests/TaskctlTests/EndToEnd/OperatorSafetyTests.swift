import CommandLineToolkit
import Foundation
import PGStore
import TaskbaseTestSupport
import Testing

/// taskctl for a careless operator and against hostile data: messages a newcomer can read,
/// numbers and bytes refused where they are wrong, exports that cannot be turned against a
/// terminal or a spreadsheet.
@Suite("taskctl: careless hands, hostile data")
struct OperatorSafetyTests {
    @Test(
        "refusals read as sentences: roles with their article, the task named once, the values they refuse, what to do next"
    )
    func messagesReadWell() async throws {
        let fixture = try await Fixture.make()
        let key = try await fixture.addTask("Guarded")
        let done = try await fixture.expectFailure(4, ["task", "done", key], as: fixture.viewer)
        #expect(
            done.standardError.contains("not allowed to change task \(key): \(fixture.viewer) is a viewer; it takes a member or above"), "\(done)")
        let member = try await fixture.expectFailure(4, ["team", "add-member", fixture.team, fixture.outsider], as: fixture.member)
        #expect(member.standardError.contains("it takes an admin or above"), "\(member)")
        let longID = try await fixture.expectFailure(
            6, ["task", "update", key, "--external-id", String(repeating: "x", count: 201)], as: fixture.member)
        #expect(longID.standardError.contains("invalid external id: an external id has at most 200 characters"), "\(longID)")

        let owners = try await fixture.expectFailure(4, ["team", "set-role", fixture.team, fixture.member, "owner"], as: fixture.admin)
        #expect(owners.standardError.contains("\(fixture.admin) is an admin; only an owner can grant"), "\(owners)")
        let users = try await fixture.expectFailure(4, ["user", "disable", fixture.viewer], as: fixture.member)
        #expect(users.standardError.contains("not allowed to manage users: \(fixture.member) is not an operator"), "\(users)")
        let lastOwner = try await fixture.expectFailure(6, ["team", "remove-member", fixture.team, fixture.owner], as: fixture.owner)
        #expect(lastOwner.standardError.contains("must keep at least one enabled owner; make another member an owner first"), "\(lastOwner)")

        try await fixture.expectSuccess(["task", "update", key, "--external-id", "ext-1"], as: fixture.member)
        let other = try await fixture.addTask("Other")
        let taken = try await fixture.expectFailure(5, ["task", "update", other, "--external-id", "ext-1"], as: fixture.member)
        #expect(taken.standardError.contains("external id \"ext-1\" in team \(fixture.team) (task \(key)) already exists"), "\(taken)")
        let stale = try await fixture.expectFailure(5, ["task", "done", key, "--if-version", "9"], as: fixture.member)
        #expect(stale.standardError.contains("\(key) is now at version 2, not the version the change was based on"), "\(stale)")

        try await fixture.expectSuccess(["user", "disable", fixture.admin])
        defer { Task { _ = try? await fixture.run(["user", "enable", fixture.admin]) } }
        let assign = try await fixture.expectFailure(6, ["task", "assign", key, fixture.admin], as: fixture.member)
        #expect(assign.standardError.contains("invalid assignee: \(fixture.admin) is disabled"), "\(assign)")
        let disabled = try await fixture.expectFailure(4, ["task", "list", "--team", fixture.team], as: fixture.admin)
        #expect(
            disabled.standardError.contains("not allowed to do anything: \(fixture.admin) is disabled; an operator can enable the account again"),
            "\(disabled)")
    }

    @Test(
        "token commands are an operator's: --as a plain user is refused (exit 4); a name holding ESC is refused (exit 6), one stored before shows escaped"
    )
    func tokensNeedAnOperator() async throws {
        let fixture = try await Fixture.make()
        // --as was taken and then dropped: a member minted a working token for the owner.
        for arguments in [["token", "create", fixture.owner], ["token", "list", fixture.owner], ["token", "revoke", "1"]] {
            let refused = try await fixture.expectFailure(4, arguments, as: fixture.member)
            #expect(refused.standardError.contains("is not an operator"), "\(arguments): \(refused)")
            #expect(refused.standardOutput.isEmpty, "no secret printed")
        }
        // A name chosen by the token's owner (over the API too) holding control characters is
        // refused (exit 6); one stored before that rule is shown escaped, never sent to the
        // operator's terminal as it is (a title, a cleared screen).
        let hostile = "x\u{1B}]0;pwned\u{07}\u{1B}[2J"
        let invalid = try await fixture.expectFailure(6, ["token", "create", fixture.member, "--name", hostile])
        #expect(invalid.standardError.contains("invalid name: a name cannot hold the control character U+001B"), "\(invalid.standardError)")
        let made = try await fixture.run(["token", "create", fixture.member, "--name", "plain"])
        #expect(made.exitCode == 0, "\(made)")
        // Warned exactly when no key is set, as taskserve warns at start.
        let keyed = ProcessInfo.processInfo.environment["TASKBASE_TOKEN_KEY"] != nil
        #expect(made.standardError.contains("TASKBASE_TOKEN_KEY is not set") == !keyed, "\(made.standardError)")
        let plain = try await fixture.expectSuccess(["token", "list", fixture.member, "--json"])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(plain.standardOutput.utf8)) as? [[String: Any]])?.first?["id"] as? Int)
        _ = try await PGConnection.with(try await TestDatabases.shared.value) { connection in
            try await connection.execute("UPDATE api_tokens SET name = \(hostile) WHERE id = \(Int64(id))")
        }
        let listed = try await fixture.expectSuccess(["token", "list", fixture.member, "--json"])
        let tokens = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
        #expect(tokens.first?["name"] as? String == hostile, "--json keeps the data exact")
        let revoked = try await fixture.expectSuccess(["token", "revoke", String(id)])
        #expect(!revoked.standardOutput.contains("\u{1B}") && revoked.standardOutput.contains("\\x1B[2J"), "\(revoked.standardOutput)")
        for key in ["", "a key of its own"] {
            let run = try await TaskctlProcess.run(["token", "create", fixture.member], environment: ["TASKBASE_TOKEN_KEY": key])
            #expect(run.exitCode == 0 && run.standardError.contains("TASKBASE_TOKEN_KEY is not set") == key.isEmpty, "\(run)")
        }
    }

    @Test("--if-version=-1 or 0 is a usage error (exit 2), not a conflict")
    func versionMustBePositive() async throws {
        let fixture = try await Fixture.make()
        let key = try await fixture.addTask("Versioned")
        for version in ["-1", "0"] {
            let result = try await fixture.expectFailure(2, ["task", "done", key, "--if-version=\(version)"], as: fixture.member)
            #expect(result.standardError.contains("expected a whole number of 1 or more"), "\(result)")
        }
    }

    @Test("an argument that is not UTF-8 is refused (exit 2) instead of becoming U+FFFD")
    func invalidUTF8Argument() async throws {
        let fixture = try await Fixture.make()
        let environment = try await TaskctlProcess.environment()
        let run = try await BuiltProgram.run(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: [
                "-c", #"exec "$0" --as "$1" task add --team "$2" "$(printf 'bad \377 title')""#,
                TaskctlProcess.executableURL.path, fixture.member, fixture.team,
            ],
            environment: environment)
        #expect(run.exitCode == 2, "\(run.standardError)")
        #expect(run.standardError.contains("argument 7 is not valid UTF-8"), "\(run.standardError)")
        let list = try await fixture.expectSuccess(["--json", "task", "list", "--team", fixture.team], as: fixture.viewer)
        #expect(!list.standardOutput.contains("bad"))
    }

    @Test("export to a file that cannot grow fails with one clear line; --defuse-formulas quotes formula cells; a pipe gets exact bytes")
    func exportSafety() async throws {
        let fixture = try await Fixture.make()
        _ = try await fixture.addTask("=HYPERLINK(\"http://evil.example\")")
        _ = try await fixture.addTask("invoice\u{202E}fdp.exe \u{1B}]0;owned\u{7}")
        let environment = try await TaskctlProcess.environment()
        let full = try await BuiltProgram.run(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: [
                "-c", #"exec "$0" --as "$1" export --team "$2" > /dev/full"#, TaskctlProcess.executableURL.path, fixture.viewer, fixture.team,
            ],
            environment: environment)
        #expect(full.exitCode == 1, "\(full.standardError)")
        #expect(full.standardError == "taskctl: error: cannot write output: No space left on device\n")

        let exact = try await fixture.expectSuccess(["export", "--team", fixture.team], as: fixture.viewer)
        #expect(exact.standardOutput.contains("\"=HYPERLINK(\"\"http://evil.example\"\")\""))
        #expect(exact.standardOutput.contains("invoice\u{202E}fdp.exe \u{1B}]0;owned\u{7}"))
        let defused = try await fixture.expectSuccess(["export", "--team", fixture.team, "--defuse-formulas"], as: fixture.viewer)
        #expect(defused.standardOutput.contains("\"'=HYPERLINK(\"\"http://evil.example\"\")\""))
    }

    @Test("a table shows a title's escape sequences, bidi overrides and zero-width characters escaped")
    func tablesEscape() async throws {
        let fixture = try await Fixture.make()
        _ = try await fixture.addTask("invoice\u{202E}fdp.exe\u{200B} \u{1B}[2J")
        let table = try await fixture.expectSuccess(["task", "list", "--team", fixture.team], as: fixture.viewer)
        #expect(table.standardOutput.contains("invoice<U+202E>fdp.exe<U+200B> \\x1B[2J"), "\(table.standardOutput)")
        #expect(!table.standardOutput.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E })
    }

    @Test("CSV to a terminal (export, task list --csv) shows escape sequences escaped; the same to a pipe is byte for byte")
    func csvToTerminalEscapes() async throws {
        let fixture = try await Fixture.make()
        _ = try await fixture.addTask("invoice\u{202E}fdp.exe \u{1B}]0;owned\u{7}")
        let environment = try await TaskctlProcess.environment()
        for command in ["export --team \(fixture.team)", "task list --csv --team \(fixture.team)"] {
            // script(1) runs the command on a pseudo-terminal, as a person at a terminal would.
            let onTerminal = try await BuiltProgram.run(
                URL(fileURLWithPath: "/usr/bin/script"),
                arguments: ["-qec", "'\(TaskctlProcess.executableURL.path)' --as '\(fixture.viewer)' \(command)", "/dev/null"],
                environment: environment)
            #expect(onTerminal.exitCode == 0, "\(command): \(onTerminal.standardError)")
            #expect(onTerminal.standardOutput.contains("invoice<U+202E>fdp.exe \\x1B]0;owned\\x07"), "\(command): \(onTerminal.standardOutput)")
            // On a slow machine export may draw its progress line on the terminal too; its own
            // erasures are the only escape sequences allowed through.
            let shown = onTerminal.standardOutput.replacingOccurrences(of: ProgressReporter.eraseLine, with: "")
            #expect(!shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }, "\(command)")
            let piped = try await fixture.expectSuccess(command.split(separator: " ").map(String.init), as: fixture.viewer)
            #expect(piped.standardOutput.contains("invoice\u{202E}fdp.exe \u{1B}]0;owned\u{7}"), "\(command)")
        }
    }

    @Test(
        "an email holding ESC is refused (exit 6) and not stored; a user stored with one before that rule is shown escaped wherever it appears"
    )
    func hostileEmailEscaped() async throws {
        let fixture = try await Fixture.make()
        let email = "esc\u{1B}]0;owned\u{7}-\(fixture.suffix.lowercased())@example.com"
        let shown = "esc\\x1B]0;owned\\x07-\(fixture.suffix.lowercased())@example.com"
        let invalid = try await fixture.expectFailure(6, ["user", "add", email, "--name", "Esc"])
        #expect(
            invalid.standardError.contains("invalid email: \"\(shown)\" holds the control character U+001B, which no email address can hold"),
            "\(invalid.standardError)")
        let users = try await fixture.expectSuccess(["user", "list", "--json"])
        #expect(!users.standardOutput.contains("]0;owned"), "not stored: \(users.standardOutput)")

        // Stored as an older taskctl did, before the rule: still read, and escaped on the terminal.
        _ = try await PGConnection.with(try await TestDatabases.shared.value) { connection in
            try await connection.execute("INSERT INTO users (email, display_name) VALUES (\(email), 'Esc')")
        }
        let listed = try await fixture.expectSuccess(["user", "list"])
        #expect(listed.standardOutput.contains(shown), "\(listed.standardOutput)")
        let member = try await fixture.expectSuccess(["team", "add-member", fixture.team, email, "--role", "viewer"], as: fixture.owner)
        #expect(member.standardOutput.contains(shown), "\(member.standardOutput)")
        let members = try await fixture.expectSuccess(["team", "members", fixture.team], as: fixture.owner)
        #expect(members.standardOutput.contains(shown), "\(members.standardOutput)")
        let refused = try await fixture.expectFailure(4, ["task", "add", "--team", fixture.team, "Nope"], as: email)
        #expect(refused.standardError.contains(shown), "\(refused.standardError)")
        for output in [invalid.standardError, listed.standardOutput, member.standardOutput, members.standardOutput, refused.standardError] {
            #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        }
    }
}
