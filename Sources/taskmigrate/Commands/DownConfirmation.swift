import CommandLineToolkit
import Foundation
import Migrations

/// The confirmation a destructive `down` needs: one that drops data, or goes to version 0.
enum DownConfirmation {
    /// Returns when `files` may be rolled back: nothing destructive, `--yes`, or "yes" typed at
    /// the terminal; otherwise a usage error (exit 2) that names what would be lost.
    static func confirm(_ files: [MigrationFile], toZero: Bool, yes: Bool) throws {
        let losses = files.flatMap { file in file.dataDroppingDownStatements.map { "\(file.fileName): \($0)" } }
        guard !yes, toZero || !losses.isEmpty else { return }
        let what =
            "rolling back \(Counted.phrase(files.count, "migration"))\(toZero ? " to version 0" : "")"
            + (losses.isEmpty ? "" : " drops data (\(losses.prefix(3).joined(separator: "; "))\(losses.count > 3 ? "; ..." : ""))")
        if isatty(STDIN_FILENO) == 1, StandardStream.standardError.isTerminal {
            try StandardStream.standardError.write("taskmigrate: \(what). Type yes to go on: ")
            if readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" { return }
            throw CommandFailure("not confirmed; nothing was rolled back", exitCode: .usage)
        }
        throw UsageError("\(what); pass --yes to confirm (nothing was rolled back)")
    }
}
