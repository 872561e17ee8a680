// board-watch: a team's board over the Taskbase HTTP API, kept current from its event stream.
// The shortest path for an app: a client from the environment, a TaskBoard over it, snapshots.
import Foundation
import TaskCore
import TaskbaseClient

let usage = """
    usage: board-watch [TEAM] [--once]

    Prints TEAM's board (tasks by category, counts by status, overdue) and reprints it on every
    change anyone makes, until interrupted (Ctrl-C ends it, exit 0). Without TEAM, the first team
    the token's user is in.
      --once     print the board and exit
      -h, --help show this help

    Environment: TASKBASE_URL (e.g. http://127.0.0.1:8080) and TASKBASE_TOKEN (an API token).
    Exit codes: 0 ok, 1 failed, 2 usage, 3 cannot connect or not configured, 4 permission denied.
    """

/// Prints `message` to stderr and exits with `code`.
func fail(_ message: String, _ code: Int32) -> Never {
    FileHandle.standardError.write(Data("board-watch: \(message)\n".utf8))
    exit(code)
}

/// The board as lines of text.
func render(_ board: BoardSnapshot) -> String {
    let counts = TaskStatus.allCases.map { "\($0.rawValue) \(board.byStatus[$0] ?? 0)" }.joined(separator: " · ")
    var lines = ["== \(board.team): \(board.total) tasks (\(counts)) · overdue \(board.overdue) as of \(board.today)"]
    if board.isTruncated { lines.append("   (more tasks than one page; showing the first)") }
    for group in board.groups {
        lines.append("\(group.name) (\(group.rows.count))")
        for row in group.rows {
            let due = row.due.isEmpty ? "" : " due \(row.due)\(row.isOverdue ? " OVERDUE" : "")"
            lines.append("  \(row.key)  [\(row.status)] \(row.title) — \(row.assignee)\(due)")
        }
    }
    return lines.joined(separator: "\n")
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("-h") || arguments.contains("--help") {
    print(usage)
    exit(0)
}
let once = arguments.contains("--once")
arguments.removeAll { $0 == "--once" }
if let unknown = arguments.first(where: { $0.hasPrefix("-") }) { fail("unknown option \(unknown)\n\(usage)", 2) }
if arguments.count > 1 { fail("at most one team\n\(usage)", 2) }

// Ctrl-C (or SIGTERM) is how a watch ends, so it is a success: exit 0, not a signal death.
for number in [SIGINT, SIGTERM] { signal(number, SIG_IGN) }
let interruptions = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
for source in interruptions {
    source.setEventHandler { exit(0) }
    source.resume()
}

let client: TaskbaseClient
do {
    client = TaskbaseClient(try ClientConfiguration.fromEnvironment())
} catch {
    fail("\(error)", 3)
}

do {
    let team: TeamKey
    if let name = arguments.first {
        team = try TeamKey(name)
    } else {
        guard let first = try await client.teams().first else { fail("the token's user is in no team; name one", 1) }
        team = first.team.key
    }
    let board = TaskBoard(session: client, team: team)
    try await board.start()
    let snapshots = await board.snapshots()
    for await snapshot in snapshots {
        FileHandle.standardOutput.write(Data((render(snapshot) + "\n\n").utf8))
        if once { exit(0) }
    }
    if let failure = await board.failure { throw failure }
} catch let error as TaskError {
    switch error {
    case .permissionDenied: fail("\(error)", 4)
    case .notFound: fail("\(error)", 1)
    default: fail("\(error)", 1)
    }
} catch let error as TaskbaseClientError {
    switch error {
    case .transport, .configuration, .unauthorized: fail("\(error)", 3)
    default: fail("\(error)", 1)
    }
} catch {
    fail("\(error)", 1)
}
