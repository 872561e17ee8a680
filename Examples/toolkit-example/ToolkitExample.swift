import CommandLineToolkit
import Foundation

/// A tiny program built on CommandLineToolkit, run as a process by the end-to-end tests to check
/// what only a real process shows: exit codes, stdout versus stderr, terminals, Ctrl-C.
@main
enum ToolkitExample {
    static func main() async {
        await CommandRunner.main { root }
    }

    static let root = Command(
        "toolkit-example",
        abstract: "Exercise CommandLineToolkit from a real process.",
        version: "toolkit-example 1.0",
        flags: [Flag("json", help: "Print data as one JSON document.")],
        subcommands: [
            Command(
                "echo",
                abstract: "Print the words, as a table or as JSON.",
                positionals: [Positional("words", valueName: "WORD", arity: .oneOrMore, help: "What to print.")],
                run: { values in
                    let words = values.strings("words")
                    if values.flag("json") {
                        try JSONOutput.write(["words": words])
                    } else {
                        var table = TextTable(columns: [.init("#", alignment: .right), .init("WORD")])
                        for (index, word) in words.enumerated() { table.append([String(index + 1), word]) }
                        try StandardStream.standardOutput.write(table.render())
                    }
                }
            ),
            Command(
                "fail",
                abstract: "Fail with the given exit code.",
                options: [Option("code", help: "The exit code.", type: .choice(ExitCode.allCases.map { String($0.rawValue) }), isRequired: true)],
                run: { values in
                    let code = ExitCode(rawValue: Int32(values.int("code") ?? 1)) ?? .failure
                    throw CommandFailure("failing on purpose with code \(code.rawValue)", exitCode: code)
                }
            ),
            Command(
                "wait",
                abstract: "Wait until Ctrl-C, then say so and exit 0 (as a live watch does).",
                flags: [Flag("rude", help: "Do not catch the cancellation: exit 130.")],
                run: { values in
                    try StandardStream.standardOutput.write("waiting\n")
                    do {
                        try await Task.sleep(for: .seconds(60))
                    } catch is CancellationError where !values.flag("rude") {
                        try StandardStream.standardOutput.write("stopped\n")
                    }
                }
            ),
            Command(
                "count",
                abstract: "Count with a progress line on stderr when it is a terminal.",
                options: [Option("to", help: "Where to stop.", type: .integer, default: "1000")],
                flags: [Flag("no-progress", help: "Draw no progress line.")],
                run: { values in
                    let total = values.int("to") ?? 0
                    let progress = ProgressReporter.onStandardError(disabled: values.flag("no-progress"))
                    for count in 1...max(total, 1) { progress.update(count: count, fraction: Double(count) / Double(total)) }
                    progress.finish()
                    try StandardStream.standardOutput.write("counted \(total)\n")
                }
            ),
        ]
    )
}
