import CommandLineToolkit
import Foundation
import TaskbaseCommandLine
import TaskCore
import TaskbaseExport

/// `taskctl watch` and `taskctl export`: the commands that stream.
enum StreamCommands {
    /// `watch`.
    static let watch = Command(
        "watch", abstract: "Print each change to a team's tasks, made by anyone, live, until Ctrl-C.",
        discussion: """
            One line per change: time, kind (created, updated, deleted), key, version, who, title. \
            With --json, one JSON object per line (JSON Lines), with the change's "sequence" in the \
            team's change log; --after SEQ first prints every change logged after it, so a watcher \
            that stopped resumes without gaps. An import too large to list prints one "resync" \
            line: reload the team. Ctrl-C, SIGTERM or SIGHUP stops watching and exits 0, whenever \
            it comes; a watcher removed from the team is refused (exit 4). "watching team KEY" is \
            printed on stderr once changes are being received.
            """,
        options: [
            SharedDeclarations.team,
            Option("after", valueName: "SEQ", help: "Resume after this sequence of the team's change log.", type: .integer),
        ],
        exitsZeroWhenStopped: { _ in true },
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let (team, actor) = (try invocation.values.teamKey(), try invocation.actor())
            let watch = ChangeWatch(
                service: try await invocation.openService(), team: team, actor: actor, json: format == .json,
                after: invocation.values.int("after").map(Int64.init))
            try await watch.run(ready: { try invocation.note("watching team \(team); Ctrl-C to stop") }, write: invocation.write)
        })

    /// `export`.
    static let export = Command(
        "export", abstract: "Write every task of a team to stdout or a file, as CSV for taskimport or as JSON.",
        discussion: """
            The CSV has the columns taskimport reads: External ID, Title, Notes, Status, Priority, \
            Due Date, Assignee (email), Category. A task without an external id exports its key \
            (CORE-7) as its external id, so importing the file into another team round-trips and \
            re-importing it changes nothing. The JSON is one array of task documents (as task show \
            --json prints them). Tasks are read and written page by page, the next page read while \
            one is written: memory stays flat. Every page is read in one snapshot (one read-only \
            transaction), so the export is the team as of one moment, whatever is written \
            meanwhile. CSV written to a terminal shows escape sequences and \
            invisible characters escaped; to a file or pipe it is exact. With --output FILE the \
            export is written beside FILE and put in its place only once it is whole: a failure, \
            Ctrl-C or SIGTERM leaves FILE as it was (a replaced FILE keeps its permissions), and a \
            line on stderr says how many tasks were written. A progress line is drawn on stderr \
            when it is a terminal.
            """,
        options: [
            SharedDeclarations.team,
            Option("format", help: "What to write.", type: .choice(of: ExportFormat.self), default: ExportFormat.csv.rawValue),
            Option(
                "output", short: "o", valueName: "FILE",
                help: "Write to FILE instead of stdout (- is stdout), replacing it only once the whole export is written."),
        ],
        flags: [
            Flag(
                "defuse-formulas",
                help:
                    "Start CSV cells beginning with = + - or @ with ' so a spreadsheet shows them as text, not formulas (the file then no longer round-trips exactly)."
            ),
            Flag("no-progress", help: "Draw no progress line, even on a terminal."),
        ],
        run: Invocation.action { invocation in
            if invocation.values.flag("json") { throw UsageError("export takes --format json, not --json") }
            let (team, actor) = (try invocation.values.teamKey(), try invocation.actor())
            // `-o -` is standard output, as `-` is standard input to taskimport (and to curl, tar).
            let path = invocation.values.string("output").flatMap { $0 == "-" ? nil : $0 }
            // The file first: a folder that is missing or not writable is said before connecting.
            let file = try path.map { path throws(CommandFailure) in try OutputFile(path: path) }
            defer { file?.abandon() }
            let service = try await invocation.openService()
            let defuses = invocation.values.flag("defuse-formulas")
            let configuration: CSVWriter.Configuration = file == nil ? .standardOutput(defusesFormulas: defuses) : .file(defusesFormulas: defuses)
            let format = invocation.values.value("format", as: ExportFormat.self) ?? .csv
            let progress = ProgressReporter.onStandardError(unit: "tasks", disabled: invocation.values.flag("no-progress"))
            let total = progress.isEnabled ? try await service.summary(of: team, as: actor).total : nil
            // Every page is read in one snapshot: the file is the team as of one moment.
            let count = try await service.withReadSnapshot { snapshot in
                var export = TaskExport(service: snapshot, team: team, actor: actor)
                export.csvConfiguration = configuration
                return try await export.write(
                    as: format,
                    to: { bytes in
                        if let file {
                            try file.write(bytes)
                        } else {
                            try invocation.write(bytes: Array(bytes))
                        }
                    },
                    afterPage: progress.isEnabled
                        ? { written in progress.update(count: written, fraction: total.map { Double(written) / Double(max($0, 1)) }) } : nil)
            }
            progress.finish()
            guard let file else { return }
            try file.commit()
            try invocation.note("exported \(Counted.phrase(count, "task")) to \(file.path)")
        })
}
