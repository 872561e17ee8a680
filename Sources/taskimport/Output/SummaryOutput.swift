import CSVImport
import CommandLineToolkit
import Foundation
import TaskCore
import TaskbaseWire

/// The end of an import in words: one line on stderr for people, or one JSON document on
/// stdout for scripts. It never says "imported" when nothing was.
struct SummaryOutput {
    let report: ImportReport
    let file: String
    let team: TeamKey
    let policy: ImportConflictPolicy
    let rejectFile: String?

    /// The summary as `--json` prints it.
    var document: ImportReportDocument {
        ImportReportDocument(report: report, file: file, team: team, policy: policy, rejectFile: rejectFile)
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
        return "\(headline) (\(counts); \(timing))\(rejected)\n" + howRead
    }

    /// A second line, when there is something to say: how the file was read (unless it was
    /// plain UTF-8 and commas), the empty rows skipped, and what each normalisation changed.
    private var howRead: String {
        var parts: [String] = []
        if let format = report.format {
            var reading: [String] = []
            if format.encoding != .utf8 || format.byteOrderMark {
                reading.append(format.encoding.displayName + (format.byteOrderMark ? " (from its byte-order mark)" : ""))
            }
            // Commas counted on the header line (the default, auto) are the plain case.
            if format.delimiter != .comma || format.delimiterOrigin == .sepLine {
                let name = format.delimiter == .tab ? "tab" : "\"\(format.delimiter.rawValue)\""
                let origin: String
                switch format.delimiterOrigin {
                case .option: origin = "--delimiter"
                case .sepLine: origin = "the file's sep= line"
                case .detected: origin = "detected on the header line"
                }
                reading.append("fields separated by \(name) (\(origin))")
            }
            if !reading.isEmpty { parts.append("read as " + reading.joined(separator: ", ")) }
        }
        if report.emptyRowsSkipped > 0 {
            parts.append("\(grouped(report.emptyRowsSkipped)) empty \(report.emptyRowsSkipped == 1 ? "row" : "rows") skipped")
        }
        let normalised = report.normalisations
        var changes: [String] = []
        if normalised.titlesTrimmed > 0 { changes.append("\(grouped(normalised.titlesTrimmed)) titles trimmed") }
        if normalised.notesTrimmedAtEnd > 0 { changes.append("\(grouped(normalised.notesTrimmedAtEnd)) notes lost trailing white space") }
        if normalised.valuesTrimmed > 0 { changes.append("\(grouped(normalised.valuesTrimmed)) categories or external ids trimmed") }
        if normalised.lineBreaksMadeLF > 0 { changes.append("\(grouped(normalised.lineBreaksMadeLF)) cells had CR or CRLF line breaks made LF") }
        if !changes.isEmpty { parts.append("normalised: " + changes.joined(separator: ", ")) }
        return parts.isEmpty ? "" : parts.joined(separator: "; ") + "\n"
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
