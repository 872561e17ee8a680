import CSVImport
import CommandLineToolkit
import Foundation
import TaskCore

/// The end of an import in words: one line on stderr for people, or one JSON document on
/// stdout for scripts. It never says "imported" when nothing was.
struct SummaryOutput {
    let report: ImportReport
    let file: String
    let team: TeamKey
    let policy: ImportConflictPolicy
    let rejectFile: String?

    /// The summary as `--json` prints it.
    struct Document: Encodable {
        var file: String
        var team: String
        var dryRun: Bool
        var onConflict: String
        var changed: Bool
        var read: Int
        var inserted: Int
        var updated: Int
        var unchanged: Int
        var skipped: Int
        var rejected: Int
        var seconds: Double
        var rowsPerSecond: Int
        var rejectFile: String?
        var rejections: [Rejection]

        /// One refused row.
        struct Rejection: Encodable {
            var line: Int
            var column: Int?
            var header: String?
            var reason: String
        }

        enum CodingKeys: String, CodingKey {
            case file, team, dryRun = "dry_run", onConflict = "on_conflict", changed, read, inserted, updated, unchanged, skipped
            case rejected, seconds, rowsPerSecond = "rows_per_second", rejectFile = "reject_file", rejections
        }
    }

    var document: Document {
        let summary = report.summary
        return Document(
            file: file, team: team.rawValue, dryRun: report.dryRun, onConflict: policy.rawValue, changed: report.changesSomething,
            read: report.rowsRead, inserted: summary.inserted, updated: summary.updated, unchanged: summary.unchanged,
            skipped: summary.skipped, rejected: report.rejected, seconds: (report.seconds * 1000).rounded() / 1000,
            rowsPerSecond: Int(report.rowsPerSecond.rounded()), rejectFile: report.rejected > 0 ? rejectFile : nil,
            rejections: report.rejections.map { .init(line: $0.line, column: $0.column, header: $0.header, reason: $0.reason) })
    }

    /// The line for people: what happened, then the counts.
    var text: String {
        let summary = report.summary
        let counts =
            "\(grouped(report.rowsRead)) \(report.rowsRead == 1 ? "row" : "rows") read: \(grouped(summary.inserted)) inserted, \(grouped(summary.updated)) updated, "
            + "\(grouped(summary.unchanged)) unchanged, \(grouped(summary.skipped)) skipped, \(grouped(report.rejected)) rejected"
        let timing = String(format: "%.2f s, %@ rows/s", report.seconds, grouped(Int(report.rowsPerSecond.rounded())))
        var rejected = ""
        if report.rejected > 0 {
            rejected = rejectFile.map { "; the rejected rows are in \($0)" } ?? "; rejected rows were left out"
        }
        return "\(headline) (\(counts); \(timing))\(rejected)\n"
    }

    /// What happened, in a few words.
    private var headline: String {
        let summary = report.summary
        if report.rowsRead == 0 { return "nothing imported into \(team): the file has no data rows" }
        if report.rejected == report.rowsRead { return "nothing imported into \(team): every row was rejected" }
        if report.dryRun {
            return report.changesSomething
                ? "dry run, nothing written: the import would change team \(team)"
                : "dry run, nothing written: the import would change nothing in team \(team)"
        }
        guard report.changesSomething else {
            return summary.skipped > 0
                ? "nothing changed in team \(team): existing tasks were skipped, the others already matched"
                : "nothing changed in team \(team): every task already matched its row"
        }
        return "imported into team \(team)"
    }

    private func grouped(_ number: Int) -> String {
        ProgressLine.grouped(number)
    }
}
