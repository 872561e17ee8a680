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
        var emptyRowsSkipped: Int
        var encoding: String?
        var byteOrderMark: Bool?
        var delimiter: String?
        var delimiterFrom: String?
        var normalised: Normalised
        var seconds: Double
        var rowsPerSecond: Int
        var rejectFile: String?
        var rejections: [Rejection]

        /// How many stored values each normalisation rule changed.
        struct Normalised: Encodable {
            var titlesTrimmed: Int
            var notesTrimmedAtEnd: Int
            var valuesTrimmed: Int
            var lineBreaksMadeLF: Int

            enum CodingKeys: String, CodingKey {
                case titlesTrimmed = "titles_trimmed", notesTrimmedAtEnd = "notes_trailing_white_space_removed"
                case valuesTrimmed = "categories_and_external_ids_trimmed", lineBreaksMadeLF = "line_breaks_made_lf"
            }
        }

        /// One refused row.
        struct Rejection: Encodable {
            var line: Int
            var column: Int?
            var header: String?
            var reason: String
        }

        enum CodingKeys: String, CodingKey {
            case file, team, dryRun = "dry_run", onConflict = "on_conflict", changed, read, inserted, updated, unchanged, skipped
            case rejected, emptyRowsSkipped = "empty_rows_skipped", encoding, byteOrderMark = "byte_order_mark", delimiter
            case delimiterFrom = "delimiter_from", normalised
            case seconds, rowsPerSecond = "rows_per_second", rejectFile = "reject_file", rejections
        }
    }

    var document: Document {
        let summary = report.summary
        return Document(
            file: file, team: team.rawValue, dryRun: report.dryRun, onConflict: policy.rawValue, changed: report.changesSomething,
            read: report.rowsRead, inserted: summary.inserted, updated: summary.updated, unchanged: summary.unchanged,
            skipped: summary.skipped, rejected: report.rejected, emptyRowsSkipped: report.emptyRowsSkipped,
            encoding: report.format?.encoding.rawValue, byteOrderMark: report.format?.byteOrderMark,
            delimiter: report.format?.delimiter.rawValue, delimiterFrom: report.format?.delimiterOrigin.rawValue,
            normalised: .init(
                titlesTrimmed: report.normalisations.titlesTrimmed, notesTrimmedAtEnd: report.normalisations.notesTrimmedAtEnd,
                valuesTrimmed: report.normalisations.valuesTrimmed, lineBreaksMadeLF: report.normalisations.lineBreaksMadeLF),
            seconds: (report.seconds * 1000).rounded() / 1000,
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
            if format.delimiter != .comma || format.delimiterOrigin != .option {
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
