/// The longer help of `taskimport --help`.
enum HelpText {
    static let discussion = """
        Columns are matched by header, ignoring case, spaces, hyphens and underscores: Title (or Name, \
        Summary, Task, Subject), Notes (Description, Details), Status (State), Priority, Due Date (Due, \
        Deadline), Assignee (Assignee Email, Assigned To, Owner), Category (Section), External ID (ID, \
        Task ID). Only a title column is required; other columns are named in a warning and ignored.

        Values: status open, in progress, done (also To Do, Doing, Completed, Closed, ...); priority \
        none, low, medium, high, urgent (also Normal, Highest, Critical, P0-P4); due dates as \
        2026-03-10, 2026-03-10T09:00, 2026/03/10 or 10.03.2026 (03/10/2026 is refused as ambiguous); \
        assignee by email, a member of the team.

        Files: UTF-8 by default (a UTF-8 BOM is dropped); a UTF-16 byte-order mark is enough to read \
        UTF-16 (Excel's "Unicode Text"); --encoding reads utf-16 without a mark, windows-1252 or latin1. \
        A byte that is not text in the encoding refuses its row, with its line and byte offset and the \
        encoding the file looks like. The separator is counted on the header line (, ; tab |) unless \
        --delimiter names one; a first line sep=X, as Excel writes it, sets it and is not a row. Blank \
        lines and rows whose every cell is empty (;;;) are skipped and counted. A field is at most \
        --max-field-size bytes (1 MiB).

        Normalisations, counted in the summary: titles are trimmed of white space at both ends, notes \
        lose trailing white space, categories and external ids are trimmed, and CR or CRLF line breaks \
        inside a cell become LF. Lengths count Unicode code points, as the database does: a title has \
        at most 500, notes 10,000.

        Re-running a file changes nothing: rows match tasks by external id, and a row without one \
        gets an id derived from its title, notes, due date and category. New tasks get the next \
        numbers; existing ones are updated, skipped or refused per --on-conflict.

        Atomic: a bad row (beyond --max-errors), a refusal or an interruption leaves the team as it \
        was. Bad rows are reported with line, column and reason, and written to --reject-file.

        Exit codes: 0 done (also with nothing to change, or with up to --max-errors bad rows left out), 1 failed, 2 usage, 3 cannot connect, \
        4 permission denied, 5 conflict (--on-conflict fail met an existing id), 6 input rejected \
        (bad rows beyond --max-errors, malformed CSV, no title column), 130/143/129 stopped by \
        Ctrl-C/SIGTERM/SIGHUP (nothing imported). With --json, a failed run \
        still prints one JSON document: the error with its line and column, and nothing imported; \
        a refused command line (exit 2) too.

        Connection: DATABASE_URL, else the PG* variables; a .env is used only when the environment \
        sets neither (stderr says so). Example: taskimport tasks.csv --team CORE --as ann@example.com --reject-file bad.csv
        """
}
