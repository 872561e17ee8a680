import CSVImport
import Foundation
import TaskCore
import TaskbaseTestSupport
import Testing

/// The built taskimport against a real PostgreSQL (run with scripts/test).
@Suite("taskimport end to end")
struct TaskimportEndToEndTests {
    /// A small file with every kind of cell: quotes, an empty category, a multi-line title,
    /// tolerant spellings, three date forms, assignees, and rows without an external id.
    func sampleCSV(_ fixture: ImportFixture, lineBreak: String = "\n") -> String {
        [
            "External ID,Title,Notes,Status,Priority,Due Date,Assignee,Category",
            "A-1,\"Fix the \"\"login\"\" loop\",\"Safari only, after expiry\",In Progress,High,2026-03-10,\(fixture.ann),Backend",
            "A-2,\"Plan the offsite\(lineBreak)(agenda, travel)\",,To Do,normal,2026/03/14,,",
            "A-3,Rotate the certificate,,done,urgent,18.03.2026,\(fixture.bo),Ops",
            ",Order a cake,No nuts.,open,,,,",
        ].joined(separator: lineBreak) + lineBreak
    }

    /// The fields an import sets, for comparing two imports.
    func fields(_ task: TaskItem) -> [String?] {
        [
            task.title, task.notes, task.status.rawValue, task.priority.rawValue, task.dueDate?.description,
            task.assigneeID?.description, task.category, task.externalID,
        ]
    }

    @Test("a file with a BOM and CRLF line breaks imports exactly like its plain twin")
    func byteOrderMarkAndCRLF() async throws {
        let plain = try await ImportFixture.make()
        let windows = try await ImportFixture.make()
        let plainRun = try await plain.importFile(try plain.file("plain.csv", sampleCSV(plain)))
        let windowsBytes = [0xEF, 0xBB, 0xBF] + Array(sampleCSV(windows, lineBreak: "\r\n").utf8)
        let windowsRun = try await windows.importFile(try windows.file("windows.csv", windowsBytes))
        #expect(plainRun.exitCode == 0, "\(plainRun.standardError)")
        #expect(windowsRun.exitCode == 0, "\(windowsRun.standardError)")

        let plainTasks = try await plain.tasks(), windowsTasks = try await windows.tasks()
        #expect(plainTasks.count == 4)
        // Assignees differ by id between the fixtures; everything else must be identical.
        #expect(
            plainTasks.map { fields($0).enumerated().filter { $0.offset != 5 }.map(\.element) }
                == windowsTasks.map { fields($0).enumerated().filter { $0.offset != 5 }.map(\.element) })
        #expect(windowsTasks.first?.title == "Fix the \"login\" loop")
        #expect(windowsTasks.map(\.title).contains("Plan the offsite\n(agenda, travel)"))
    }

    @Test("the same file imported twice changes nothing the second time, rows without an external id included")
    func idempotentReimport() async throws {
        let fixture = try await ImportFixture.make()
        let path = try fixture.file("tasks.csv", sampleCSV(fixture))
        let first = try fixture.summary(try await fixture.importFile(path, ["--json"]))
        #expect(first["inserted"] as? Int == 4)
        let before = try await fixture.tasks()

        let second = try await fixture.importFile(path, ["--json"])
        #expect(second.exitCode == 0)
        let summary = try fixture.summary(second)
        #expect(summary["inserted"] as? Int == 0)
        #expect(summary["updated"] as? Int == 0)
        #expect(summary["unchanged"] as? Int == 4)
        #expect(summary["changed"] as? Bool == false)
        #expect(try await fixture.tasks() == before)

        let text = try await fixture.importFile(path)
        #expect(text.standardError.contains("nothing changed in team \(fixture.team)"))
        #expect(!text.standardError.contains("imported into"))
    }

    @Test("with --max-errors 0, one bad row writes nothing and exits 6 naming its line and column")
    func oneBadRowAbortsEverything() async throws {
        let fixture = try await ImportFixture.make()
        let csv = "Title,Due Date\nFirst,2026-03-01\nSecond,2026-02-30\nThird,\n"
        let result = try await fixture.importFile(try fixture.file("bad.csv", csv))
        #expect(result.exitCode == 6)
        #expect(result.standardError.contains("line 3, column 2 (Due Date)"), "\(result.standardError)")
        #expect(result.standardError.contains("not a real date"))
        #expect(result.standardError.contains("nothing was imported"))
        #expect(try await fixture.tasks().isEmpty)
    }

    @Test("with --max-errors 5 the good rows land and the reject file holds the bad ones with their reasons")
    func rejectFile() async throws {
        let fixture = try await ImportFixture.make()
        let csv = """
            ID,Title,Status,Assignee
            1,Good one,open,\(fixture.ann)
            2,,open,
            3,Bad status,sleeping,
            4,Good two,Doing,
            5,"Ragged",open,,extra
            1,Repeated id,open,
            6,Outsider,open,nobody@example.com

            """
        let rejects = fixture.folder.appendingPathComponent("rejects.csv").path
        let result = try await fixture.importFile(
            try fixture.file("mixed.csv", csv), ["--max-errors", "5", "--reject-file", rejects, "--json"])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let summary = try fixture.summary(result)
        #expect(summary["read"] as? Int == 7)
        #expect(summary["inserted"] as? Int == 2)
        #expect(summary["rejected"] as? Int == 5)
        #expect(try await fixture.tasks().map(\.title) == ["Good one", "Good two"])

        let reader = try CSVReader(path: rejects)
        var rows: [[String]] = []
        while let record = try reader.next() { rows.append(record.fields) }
        #expect(rows.first == ["ID", "Title", "Status", "Assignee", "reason"])
        let reasons = rows.dropFirst().map { $0.last ?? "" }
        #expect(rows.dropFirst().map { $0[0] } == ["2", "3", "5", "1", "6"])
        #expect(reasons[0].hasPrefix("line 3, column 2 (Title): a title cannot be empty"))
        #expect(reasons[1].contains("line 4, column 3 (Status)"))
        #expect(reasons[2].contains("expected 4 fields"))
        #expect(reasons[3].contains("line 7, column 1 (ID): external id \"1\" is also on line 2"))
        #expect(reasons[4].contains("nobody@example.com is not a member of team"))
    }

    @Test("a title of 295 Hindi characters (520 code points) is one rejected row with its line, not a database error")
    func titleLongInCodePoints() async throws {
        let fixture = try await ImportFixture.make()
        let hindi = String(repeating: "कि", count: 225) + String(repeating: "क", count: 70)
        let path = try fixture.file("long.csv", "Title\nFirst\n\(hindi)\nThird\n")
        for options in [["--max-errors", "100", "--dry-run"], ["--max-errors", "100"]] {
            let result = try await fixture.importFile(path, options + ["--json"])
            #expect(result.exitCode == 0, "\(result.standardError)")
            let summary = try fixture.summary(result)
            #expect(summary["rejected"] as? Int == 1)
            #expect(summary["inserted"] as? Int == 2)
            let rejection = try #require((summary["rejections"] as? [[String: Any]])?.first)
            #expect(rejection["line"] as? Int == 3)
            #expect((rejection["reason"] as? String)?.contains("at most 500 characters (Unicode code points), got 520") == true)
        }
        let strict = try await fixture.importFile(try fixture.file("strict.csv", "Title\nFourth\n\(hindi)\n"))
        #expect(strict.exitCode == 6)
        #expect(strict.standardError.contains("line 3, column 1 (Title): a title has at most 500"), "\(strict.standardError)")
        #expect(try await fixture.tasks().map(\.title) == ["First", "Third"])
    }

    @Test("a viewer's import is refused with exit 4 and writes nothing")
    func viewerIsRefused() async throws {
        let fixture = try await ImportFixture.make()
        let result = try await fixture.importFile(try fixture.file("tasks.csv", sampleCSV(fixture)), as: fixture.viewer)
        #expect(result.exitCode == 4)
        #expect(result.standardError.contains("is a viewer"), "\(result.standardError)")
        #expect(try await fixture.tasks().isEmpty)
    }

    @Test("an --as user who does not exist is named as the acting user, with exit 1, and nothing is imported")
    func unknownActor() async throws {
        let fixture = try await ImportFixture.make()
        let ghost = "ghost-\(UInt32.random(in: 0...UInt32.max))@example.com"
        let result = try await fixture.importFile(try fixture.file("tasks.csv", sampleCSV(fixture)), as: ghost)
        #expect(result.exitCode == 1)
        #expect(
            result.standardError.contains(
                "the acting user (--as or TASKBASE_ACTOR), user \(ghost), does not exist; nothing was imported; check the email"),
            "\(result.standardError)")
        #expect(try await fixture.tasks().isEmpty)
    }

    @Test("--dry-run writes nothing and reports what the import would do")
    func dryRun() async throws {
        let fixture = try await ImportFixture.make()
        let path = try fixture.file("tasks.csv", sampleCSV(fixture))
        let result = try await fixture.importFile(path, ["--dry-run", "--json"])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let summary = try fixture.summary(result)
        #expect(summary["dry_run"] as? Bool == true)
        #expect(summary["inserted"] as? Int == 4)
        #expect(try await fixture.tasks().isEmpty)

        let text = try await fixture.importFile(path, ["--dry-run"])
        #expect(text.standardError.hasPrefix("dry run, nothing written: the import would change team \(fixture.team)"))
    }

    @Test("the importer's options are judged as the API judges them: SKIP is skip; a bad --max-errors is exit 2 with a --json failure document")
    func optionsAsTheAPIJudgesThem() async throws {
        let fixture = try await ImportFixture.make()
        let path = try fixture.file("one.csv", "ID,Title\nX-1,One\n")
        #expect(try await fixture.importFile(path).exitCode == 0)
        // Before: exit 2 on the command line ("SKIP" is no choice), while the API took it.
        let skipped = try await fixture.importFile(path, ["--on-conflict", "SKIP", "--json"])
        #expect(skipped.exitCode == 0, "\(skipped.standardError)")
        #expect(try fixture.summary(skipped)["skipped"] as? Int == 1)
        // Before: exit 2 with nothing on standard output.
        let bad = try await fixture.importFile(path, ["--max-errors", "x", "--json"])
        #expect(bad.exitCode == 2, "\(bad.standardError)")
        let error = try #require(try fixture.summary(bad)["error"] as? [String: Any])
        #expect((error["message"] as? String)?.contains("--max-errors: expected 0 or more, got x") == true, "\(error)")
    }

    @Test("a refused command line still prints one --json failure document, with exit code 2 and the stderr line's message")
    func usageErrorDocument() async throws {
        let fixture = try await ImportFixture.make()
        let path = try fixture.file("one.csv", "ID,Title\nX-1,One\n")
        let team = fixture.team.rawValue
        let cases: [(arguments: [String], environment: [String: String], team: String?)] = [
            (["--json", "--bogus", path, "--team", team, "--as", fixture.owner], [:], team),
            (["--json", path], [:], nil),
            (["--json", "--max-errors", "x", path], [:], nil),
            (["--json", path, "-t", team, "--as", fixture.owner, "extra.csv"], [:], team),
            (["--json", path, "--team", team, "--as", fixture.owner], ["TASKBASE_LOCK_TIMEOUT": "soon"], team),
        ]
        for (arguments, environment, expectedTeam) in cases {
            let run = try await TaskimportProcess.run(arguments, environment: environment)
            #expect(run.exitCode == 2, "\(arguments): \(run)")
            // Exactly one document: JSONSerialization refuses anything after the first.
            let document = try fixture.summary(run)
            let error = try #require(document["error"] as? [String: Any], "\(arguments): \(run.standardOutput)")
            let line = try #require(run.standardError.split(separator: "\n").first.map(String.init), "\(arguments)")
            #expect(line == "taskimport: error: \(error["message"] as? String ?? "?")", "\(arguments)")
            #expect(error["exit_code"] as? Int == 2, "\(arguments)")
            #expect(error["line"] is NSNull, "\(arguments)")
            #expect(document["file"] as? String == path, "\(arguments)")
            #expect((document["team"] as? String) == expectedTeam, "\(arguments)")
            #expect(document["imported"] as? Bool == false, "\(arguments)")
            #expect(document["read"] as? Int == 0 && document["inserted"] as? Int == 0 && document["rejected"] as? Int == 0, "\(arguments)")
            // The stderr line and usage hint are those of a run without --json, which prints nothing on stdout.
            let plain = try await TaskimportProcess.run(arguments.filter { $0 != "--json" }, environment: environment)
            #expect(plain.exitCode == 2, "\(arguments): \(plain)")
            #expect(plain.standardOutput.isEmpty, "\(arguments)")
            #expect(plain.standardError == run.standardError, "\(arguments)")
        }
        #expect(try await TaskimportProcess.run(["--json", path]).standardError.contains("missing required option '--team KEY'"))

        // An argument that is not UTF-8 is refused before parsing, by the runner: the same document.
        let bytes = try await BuiltProgram.run(
            URL(fileURLWithPath: "/bin/sh"),
            arguments: [
                "-c", #"exec "$0" --json --team "$1" --as "$2" "$(printf 'bad\377.csv')""#, BuiltProgram.url("taskimport").path, team, fixture.owner,
            ],
            environment: try await TaskimportProcess.environment([:]))
        #expect(bytes.exitCode == 2, "\(bytes)")
        let refused = try #require(try fixture.summary(bytes)["error"] as? [String: Any])
        #expect(refused["message"] as? String == "argument 6 is not valid UTF-8; pass text in UTF-8 (check the terminal's or the script's encoding)")
        #expect(refused["exit_code"] as? Int == 2)
        #expect(bytes.standardError == "taskimport: error: \(refused["message"] as? String ?? "?")\n")

        // --json as --team's value is not the flag.
        let valued = try await TaskimportProcess.run(["--team", "--json", path, "--as", fixture.owner])
        #expect(valued.exitCode == 2, "\(valued)")
        #expect(valued.standardOutput.isEmpty)
        #expect(valued.standardError.hasPrefix("taskimport: error: option '--team' needs a value KEY"))
        #expect(try await fixture.tasks().isEmpty)
    }

    @Test("--on-conflict fail meeting an existing external id exits 5 and writes nothing")
    func conflictPolicyFail() async throws {
        let fixture = try await ImportFixture.make()
        _ = try await fixture.importFile(try fixture.file("one.csv", "ID,Title\nX-1,Existing\n"))
        let result = try await fixture.importFile(
            try fixture.file("two.csv", "ID,Title\nX-2,New\nX-1,Existing again\n"), ["--on-conflict", "fail"])
        #expect(result.exitCode == 5, "\(result.standardError)")
        #expect(try await fixture.tasks().map(\.title) == ["Existing"])
    }

    @Test("- reads standard input, with another delimiter, and unknown columns are named in a warning")
    func standardInput() async throws {
        let fixture = try await ImportFixture.make()
        let result = try await fixture.importFile("-", ["--delimiter", ";"], input: "Summary;Colour;Deadline\nFrom a pipe;red;10.12.2026\n")
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(result.standardError.contains("warning: ignoring columns that match no task field: \"Colour\""))
        let tasks = try await fixture.tasks()
        #expect(tasks.map(\.title) == ["From a pipe"])
        #expect(tasks.first?.dueDate == CalendarDate(year: 2026, month: 12, day: 10))
    }

    @Test("a file without a title column is refused with exit 6 before any row is read")
    func missingTitleColumn() async throws {
        let fixture = try await ImportFixture.make()
        let result = try await fixture.importFile(try fixture.file("no-title.csv", "Notes,Status\nsomething,open\n"))
        #expect(result.exitCode == 6)
        #expect(result.standardError.contains("no title column"))
    }

    @Test("Examples/tasks.csv imports: quotes, empty categories, a multi-line title, rows without an id")
    func exampleFile() async throws {
        let fixture = try await ImportFixture.make()
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/tasks.csv")
        let text = try String(contentsOf: example, encoding: .utf8)
            .replacingOccurrences(of: "ann@example.com", with: fixture.ann).replacingOccurrences(of: "bo@example.com", with: fixture.bo)
        let result = try await fixture.importFile(try fixture.file("example.csv", text), ["--json"])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let tasks = try await fixture.tasks()
        #expect(tasks.count == 12)
        #expect(tasks.contains { $0.title.contains("\n") && $0.category == nil })
        #expect(tasks.filter { $0.externalID?.hasPrefix("auto-") == true }.count == 2)
    }
}
