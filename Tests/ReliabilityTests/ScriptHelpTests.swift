import Foundation
import TaskbaseTestSupport
import Testing

/// `scripts/NAME --help` says what the script does and does nothing else: no cluster started,
/// no build, no database made, nothing installed. Before, `scripts/quickstart --help` started
/// PostgreSQL and ran the whole quickstart, `scripts/test --help` made a database before
/// printing `swift test`'s help, and `scripts/image-check --help` went on to debootstrap.
@Suite("scripts/NAME --help", .timeLimit(.minutes(1)))
struct ScriptHelpTests {
    /// Every script that does work when run (scripts/pg and scripts/faults take a command, and
    /// print their usage without one).
    static let scripts = ["quickstart", "test", "bench", "api-fuzz", "image-check", "lint", "schema"]

    /// Scripts that take no argument but --help: any other is refused before anything runs.
    static let withoutArguments = ["quickstart", "api-fuzz", "image-check"]

    /// The environment a run here gets: a PostgreSQL port nothing listens on and no database,
    /// so a script that went on to start or reach one would say so on its output.
    static let environment = ["TASKBASE_PG_PORT": "25499", "DATABASE_URL": ""]

    @Test("--help prints the script's own description and exits 0 before doing anything", arguments: scripts)
    func helpOnly(script: String) async throws {
        let outcome = try await BuiltProgram.run(
            PackagePaths.script(script), arguments: ["--help"], environment: BuiltProgram.environment(adding: Self.environment))
        #expect(outcome.exitCode == 0 && !outcome.killedBySignal, "\(outcome)")
        #expect(outcome.standardOutput.hasPrefix("scripts/\(script)"), "\(outcome.standardOutput.prefix(300))")
        // Nothing but the description: the header comment has no line of a script's progress.
        for sign in ["pg: ", "==> ", "Building", "OVERVIEW:", "\(script): "] {
            #expect(!(outcome.standardOutput + outcome.standardError).contains(sign), "\(sign) in \(outcome)")
        }
    }

    /// Every script with a header comment, scripts/faults included (it prints its header on
    /// --help too). scripts/pg prints a usage of its own.
    static let withHeaders = scripts + ["faults"]

    /// What --help must print: the script's whole leading comment block, after the `#!` line, up
    /// to the first line that is not a comment, each line without its `# `. Before, three
    /// scripts printed fixed line ranges of themselves, and scripts/faults' range had already
    /// lost its header's last line.
    static func header(of script: String) throws -> String {
        let text = try String(contentsOf: PackagePaths.script(script), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
        return lines.prefix { $0.hasPrefix("#") }
            .map { line in
                let rest = line.dropFirst()
                return String(rest.hasPrefix(" ") ? rest.dropFirst() : rest) + "\n"
            }
            .joined()
    }

    @Test("--help prints the script's whole header comment, however long it grows", arguments: withHeaders)
    func helpIsTheWholeHeader(script: String) async throws {
        let outcome = try await BuiltProgram.run(
            PackagePaths.script(script), arguments: ["--help"], environment: BuiltProgram.environment(adding: Self.environment))
        #expect(outcome.exitCode == 0, "\(outcome)")
        let header = try Self.header(of: script)
        #expect(header.split(separator: "\n").count >= 2, "scripts/\(script) has no header comment")
        #expect(outcome.standardOutput == header, "\(outcome.standardOutput)")
    }

    @Test("an argument a script does not take is refused with exit 2, naming it", arguments: withoutArguments)
    func unknownArgument(script: String) async throws {
        let outcome = try await BuiltProgram.run(
            PackagePaths.script(script), arguments: ["--bogus"], environment: BuiltProgram.environment(adding: Self.environment))
        #expect(outcome.exitCode == 2, "\(outcome)")
        #expect(outcome.standardError.contains("unknown argument '--bogus'"), "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
    }
}
