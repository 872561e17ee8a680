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

        Re-running a file changes nothing: rows match tasks by external id, and a row without one \
        gets an id derived from its title, notes, due date and category. New tasks get the next \
        numbers; existing ones are updated, skipped or refused per --on-conflict.

        Atomic: a bad row (beyond --max-errors), a refusal or an interruption leaves the team as it \
        was. Bad rows are reported with line, column and reason, and written to --reject-file.

        Exit codes: 0 done (also with nothing to change, or with up to --max-errors bad rows left out), 1 failed, 2 usage, 3 cannot connect, \
        4 permission denied, 5 conflict (--on-conflict fail met an existing id), 6 input rejected \
        (bad rows beyond --max-errors, malformed CSV, no title column).

        Connection: DATABASE_URL, else the PG* variables; a .env is used only when the environment \
        sets neither (stderr says so). Example: taskimport tasks.csv --team CORE --as ann@example.com --reject-file bad.csv
        """
}
