import Foundation
import PGStore
import TaskbaseTestSupport
import Testing

/// What a careless operator or a hostile file can no longer do to taskimport.
@Suite("taskimport: careless paths and hostile files")
struct OperatorSafetyImportTests {
    static let csv = "External ID,Title\nx-1,First\nx-2,Second\n"

    @Test("a --reject-file that is the input (same path, a symbolic link, a hard link) is refused with exit 2 and the input is untouched")
    func rejectFileIsTheInput() async throws {
        let fixture = try await ImportFixture.make()
        let input = try fixture.file("input.csv", Self.csv)
        let symlink = fixture.folder.appendingPathComponent("link.csv").path
        let hardLink = fixture.folder.appendingPathComponent("hard.csv").path
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: input)
        try FileManager.default.linkItem(atPath: input, toPath: hardLink)
        for reject in [input, symlink, hardLink, fixture.folder.appendingPathComponent("./input.csv").path] {
            let run = try await fixture.importFile(input, ["--reject-file", reject])
            #expect(run.exitCode == 2, "\(reject): \(run.standardError)")
            #expect(run.standardError.contains("is the input file"), "\(run.standardError)")
            #expect(try String(contentsOfFile: input, encoding: .utf8) == Self.csv)
        }
        #expect(try await fixture.tasks().isEmpty)
    }

    @Test(
        "the reject file replaces yesterday's only when the run keeps it: refused for its rows it does (mode kept), refused as a viewer it does not, nothing is left beside it"
    )
    func rejectFileWholeOrNotThere() async throws {
        let fixture = try await ImportFixture.make()
        let reject = fixture.folder.appendingPathComponent("bad.csv").path
        let yesterday = "yesterday's rejects\n"
        let input = try fixture.file("input.csv", "External ID,Title,Status\nx-1,Fine,open\nx-2,,open\nx-3,Odd,sleeping\n")
        try yesterday.write(toFile: reject, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: reject)

        // Refused before any row is read (a viewer may not import): the path keeps what it had.
        let viewer = try await fixture.importFile(input, as: fixture.viewer, ["--reject-file", reject])
        #expect(viewer.exitCode == 4, "\(viewer.standardError)")
        #expect(try String(contentsOfFile: reject, encoding: .utf8) == yesterday)
        #expect(try Self.entries(of: fixture.folder) == ["bad.csv", "input.csv"])

        // Refused for its rows (two bad, none allowed): the reject file lists them, in place of
        // yesterday's, still private.
        let refused = try await fixture.importFile(input, ["--reject-file", reject])
        #expect(refused.exitCode == 6, "\(refused.standardError)")
        let rows = try String(contentsOfFile: reject, encoding: .utf8).split(separator: "\r\n")
        #expect(rows.first == "External ID,Title,Status,reason")
        #expect(rows.dropFirst().first?.hasPrefix(#"x-2,"",open,"#) == true, "\(rows)")
        let mode = try FileManager.default.attributesOfItem(atPath: reject)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try Self.entries(of: fixture.folder) == ["bad.csv", "input.csv"])
        #expect(try await fixture.tasks().isEmpty)

        // A folder that does not exist: a usage error naming the path, before connecting.
        let missing = fixture.folder.appendingPathComponent("no-such-folder/bad.csv").path
        let nowhere = try await fixture.importFile(input, ["--reject-file", missing, "--max-errors", "5"])
        #expect(nowhere.exitCode == 2, "\(nowhere.standardError)")
        #expect(nowhere.standardError.contains("cannot write \(missing)"), "\(nowhere.standardError)")
        #expect(try await fixture.tasks().isEmpty)

        // An empty path is said to be empty, not taken for the working folder and named as that.
        let empty = try await fixture.importFile(input, ["--reject-file", "", "--max-errors", "5"])
        #expect(empty.exitCode == 2, "\(empty.standardError)")
        #expect(
            empty.standardError.hasPrefix("taskimport: error: cannot write to an empty path; name a file in a folder that exists and is writable"),
            "\(empty.standardError)")
        #expect(try await fixture.tasks().isEmpty)
    }

    @Test("a summary that cannot be written once the import committed (stdout is /dev/full) says the import is committed, exit 1")
    func summaryUnwritable() async throws {
        let fixture = try await ImportFixture.make()
        let input = try fixture.file("input.csv", "External ID,Title\nx-1,One\nx-2,Two\n")
        let arguments = [input, "--team", fixture.team.rawValue, "--as", fixture.owner, "--no-progress", "--json"]
        let run = try await BuiltProgram.run(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", #"exec "$0" "$@" >/dev/full"#, BuiltProgram.url("taskimport").path] + arguments,
            environment: try await TaskimportProcess.environment([:]))
        #expect(run.exitCode == 1, "\(run)")
        // Before: "cannot write output: No space left on device; nothing was imported".
        #expect(!run.standardError.contains("nothing was imported"), "\(run.standardError)")
        #expect(run.standardError.contains("the import itself is committed (2 inserted, 0 updated)"), "\(run.standardError)")
        #expect(try await fixture.tasks().count == 2)
    }

    @Test(
        "an import stopped by SIGTERM while it waits for the team's lock exits 143 (and --json says so), imports nothing and leaves the reject file as it was"
    )
    func rejectFileKeptWhenStopped() async throws {
        let fixture = try await ImportFixture.make()
        let reject = fixture.folder.appendingPathComponent("bad.csv").path
        let yesterday = "yesterday's rejects\n"
        try yesterday.write(toFile: reject, atomically: true, encoding: .utf8)
        let input = try fixture.file("input.csv", "External ID,Title,Status\nx-1,Fine,open\nx-2,,open\n")
        // Another session holds the team's task counter, which every import locks first.
        let config = try await ImportTestDatabase.config.value
        let blocker = try await PGConnection.connect(config)
        defer { Task { await blocker.close() } }
        try await blocker.execute("BEGIN")
        try await blocker.execute(
            "SELECT FROM task_counters WHERE team_id = (SELECT id FROM teams WHERE key = \(fixture.team.rawValue)) FOR UPDATE")
        let blockerPID = try await blocker.query("SELECT pg_backend_pid() AS pid")[0].decode(Int.self, "pid")

        let importer = try await TaskimportProcess.start(
            [input, "--team", fixture.team.rawValue, "--as", fixture.owner, "--no-progress", "--max-errors", "5", "--reject-file", reject, "--json"])
        // Asked on a connection of its own: inside the blocker's transaction pg_stat_activity
        // would stay as it was at the transaction's first look.
        try await waitUntil("the import to wait for the team's counter", limit: .seconds(30)) {
            try await PGConnection.with(config) { connection in
                try await connection.query("SELECT count(*) AS n FROM pg_stat_activity WHERE \(blockerPID) = ANY(pg_blocking_pids(pid))")[0]
                    .decode(Int.self, "n") == 1
            }
        }
        importer.send(SIGTERM)
        let stopped = try await importer.finish(within: .seconds(20))
        try await blocker.execute("COMMIT")
        #expect(stopped.exitCode == 128 + SIGTERM, "\(stopped)")
        // --json reports the code it exits with (it said 130, Ctrl-C's, for any signal).
        let reported = try JSONSerialization.jsonObject(with: Data(stopped.standardOutput.utf8)) as? [String: Any]
        #expect((reported?["error"] as? [String: Any])?["exit_code"] as? Int == 128 + Int(SIGTERM), "\(stopped.standardOutput)")
        #expect(try String(contentsOfFile: reject, encoding: .utf8) == yesterday)
        #expect(try Self.entries(of: fixture.folder) == ["bad.csv", "input.csv"])
        #expect(try await fixture.tasks().isEmpty)
    }

    /// The names in `folder`, sorted (hidden ones too: a `.bad.csv.RANDOM.part` left behind shows).
    static func entries(of folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("a directory given as the input file is a usage error (exit 2)")
    func directoryAsInput() async throws {
        let fixture = try await ImportFixture.make()
        let run = try await fixture.importFile(fixture.folder.path)
        #expect(run.exitCode == 2, "\(run.standardError)")
        #expect(run.standardError.contains("is a directory"), "\(run.standardError)")
    }

    @Test("10,000 unknown columns give one short warning: the first few names and a count")
    func manyUnknownColumns() async throws {
        let fixture = try await ImportFixture.make()
        let extras = (1...10_000).map { "Extra \($0)" }
        let text = (["Title"] + extras).joined(separator: ",") + "\n" + (["One"] + extras.map { _ in "" }).joined(separator: ",") + "\n"
        let run = try await fixture.importFile(try fixture.file("wide.csv", text))
        #expect(run.exitCode == 0, "\(run.standardError.prefix(500))")
        let warning = try #require(run.standardError.split(separator: "\n").first { $0.contains("ignoring columns") })
        #expect(warning.count < 300, "\(warning.count) characters")
        #expect(warning.contains("\"Extra 1\", \"Extra 2\", \"Extra 3\", \"Extra 4\", \"Extra 5\" and 9995 more (10000 in all)"))
    }

    @Test("escape sequences and bidi overrides in headers and cells reach stderr escaped, never raw")
    func hostileTextEscaped() async throws {
        let fixture = try await ImportFixture.make()
        let text = "Title,\u{1B}]0;owned\u{7}Colour\u{202E}\n\"\u{1B}[2J\",x\n"
        let run = try await fixture.importFile(try fixture.file("hostile.csv", text), ["--max-errors", "5"])
        #expect(!run.standardError.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        // Header names are quoted with their invisible characters escaped as in every message
        // (TerminalText: \x1B for controls, <U+202E> for format characters), with a hint.
        #expect(run.standardError.contains(#""\x1B]0;owned\x07Colour<U+202E>""#), "\(run.standardError)")
    }

    @Test("a bad TASKBASE_STATEMENT_TIMEOUT or TASKBASE_LOCK_TIMEOUT is named as the variable, not as an option not given")
    func badTimeoutVariableNamed() async throws {
        let fixture = try await ImportFixture.make()
        let path = try fixture.file("timeouts.csv", "Title\nOne\n")
        for variable in ["TASKBASE_STATEMENT_TIMEOUT", "TASKBASE_LOCK_TIMEOUT"] {
            let run = try await TaskimportProcess.run(
                [path, "--team", fixture.team.rawValue, "--as", fixture.owner, "--no-progress"], environment: [variable: "soon"])
            #expect(run.exitCode == 2, "\(run.standardError)")
            #expect(
                run.standardError.hasPrefix("taskimport: error: invalid value 'soon' in \(variable): expected a duration like 500ms"),
                "\(run.standardError)")
        }
        #expect(try await fixture.tasks().isEmpty)
    }

    @Test("--help shows the default of no statement timeout as none, not 0ms, and TASKBASE_STATEMENT_TIMEOUT=none is accepted")
    func helpSaysNone() async throws {
        let help = try await TaskimportProcess.run(["--help"]).standardOutput
        let flattened = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flattened.contains("(default: none; env: TASKBASE_STATEMENT_TIMEOUT)"), "\(help)")
        #expect(!flattened.contains("default: 0ms"), "\(help)")
        let fixture = try await ImportFixture.make()
        let run = try await TaskimportProcess.run(
            [try fixture.file("none.csv", "Title\nOne\n"), "--team", fixture.team.rawValue, "--as", fixture.owner, "--no-progress"],
            environment: ["TASKBASE_STATEMENT_TIMEOUT": "none"])
        #expect(run.exitCode == 0, "\(run.standardError)")
    }
}
