import CSVImport
import CommandLineToolkit
import TaskCore
import TaskbaseCommandLine
#if canImport(Glibc)
import Glibc
#endif

/// The taskimport program: bulk CSV import of tasks into one team, through TaskService's
/// import port, all or nothing.
@main
enum TaskImport {
    static func main() async {
        useOneMallocArena()
        await CommandRunner.main { command }
    }

    /// Batches are built on one thread and freed on another; with glibc's one malloc arena their
    /// memory is reused instead of spread over per-thread arenas (1M rows: 48 MB peak, not 52).
    /// `mallopt` is not in the Glibc module, so it is looked up; M_ARENA_MAX is -8 in malloc.h.
    private static func useOneMallocArena() {
        #if canImport(Glibc)
        typealias MallocOption = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: MallocOption.self)(-8, 1)
        #endif
    }

    /// The whole command line: one command, no subcommands.
    static let command = Command(
        "taskimport",
        abstract: "Import tasks from a CSV file into a team, all or nothing.",
        discussion: HelpText.discussion,
        version: "taskimport 0.1.0",
        positionals: [Positional("file", valueName: "FILE", help: "The CSV file to import, or - for standard input.")],
        // The importer's own options are taken as text and judged by ImportOptions, as the API's
        // query parameters are: one judge, the same spellings accepted (`SKIP` as `skip`), and
        // a refusal that --json reports as its failure document.
        options: [
            Option("team", short: "t", valueName: "KEY", help: "The team that receives the tasks, e.g. CORE.", isRequired: true),
            Option("as", valueName: "EMAIL", help: "The acting user (a member of the team or above).", environment: "TASKBASE_ACTOR"),
            Option(
                "on-conflict", valueName: "POLICY",
                help: "A row whose external id the team already has: update the task, skip the row, or fail the whole import.",
                default: ImportConflictPolicy.update.rawValue),
            Option(
                "reject-file", valueName: "PATH",
                help: "Write every bad row there, its fields as read plus a reason column, in UTF-8 (with a byte-order mark when the input had one)."),
            Option(
                "max-errors", valueName: "N",
                help: "Leave out up to N bad rows and import the rest; one more stops the import with nothing written.",
                default: "0"),
            Option(
                "map", valueName: "FIELD=HEADER",
                help: "Fill FIELD (title, notes, status, priority, dueDate, assignee, category, externalId) from the column HEADER.",
                isRepeatable: true),
            Option(
                "delimiter", valueName: "CHAR",
                help: "The field separator: , ; tab or |, or auto to count them on the header line. A first line sep=X wins.",
                default: "auto"),
            Option(
                "encoding", valueName: "NAME",
                help: "The file's encoding: utf-8, utf-16, windows-1252 or latin1. A byte-order mark wins.", default: "utf-8"),
            Option(
                "max-field-size", valueName: "BYTES",
                help: "The longest field read, in bytes (after conversion to UTF-8); a longer one stops the import.",
                default: String(CSVReader.Options.defaultMaxFieldBytes)),
        ] + SessionLimitOptions.options(lockTimeout: .seconds(60), statementTimeout: .zero),
        flags: [
            Flag("dry-run", short: "n", help: "Check everything and report what would happen; write nothing."),
            Flag("json", help: "Print the summary as one JSON document on standard output."),
            Flag("no-progress", help: "Draw no progress line, even on a terminal."),
        ],
        // A command line the parser refused gets its --json document as a failed run does.
        usageFailureDocument: { error, values in values.flag("json") ? FailureOutput(error: error, values: values).document : nil },
        run: { values in
            do {
                try await LockWaitWatch.run { try await ImportRun(values: values).run() }
            } catch let error where Task.isCancelled && !(error is ReportFailure) {
                throw CommandFailure("interrupted: nothing was imported", exitCode: .interrupted)
            } catch {
                throw ImportExitCodes.failure(for: error, values: values)
            }
        }
    )
}
