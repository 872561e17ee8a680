import CSVImport
import CommandLineToolkit
import Foundation
import TaskbaseCommandLine

/// Where refused rows go: the reject file (the row's fields as read plus a reason column, via
/// the toolkit's `CSVWriter`) and, for the first few within `--max-errors`, a warning on stderr.
///
/// The reject file is an `OutputFile`: it replaces what was at its path only when the run
/// finishes keeping it (`finish(keeping:)`), so a run stopped by a signal or failing for a
/// reason other than its rows leaves yesterday's reject file as it was.
///
/// The importer calls `record` from one task at a time; the lock makes that safe to rely on.
final class RejectionOutput: @unchecked Sendable {
    /// How many refusals are shown on stderr; the reject file has them all.
    private static let shownWarnings = 20

    /// The reject file's path, if there is one.
    var path: String? { file?.path }
    private let file: OutputFile?
    private let writer: CSVWriter?
    private let columnCount: Int
    private let delimiter: String
    private let shownLimit: Int
    private let printer: ErrorPrinter
    private let lock = NSLock()
    private var count = 0

    /// Starts the reject file for `path` with its header: `header` plus `reason`. A folder that
    /// is missing or not writable fails here, before anything is imported. With
    /// `byteOrderMark` the file (always UTF-8) starts with UTF-8's byte-order mark: a
    /// spreadsheet's export that had one (Excel's UTF-16 "Unicode Text", its "CSV UTF-8") is
    /// opened again by Excel, which reads a UTF-8 file without one as the system's code page
    /// ("CafÃ©"), and the corrected rows would be saved mangled.
    init(path: String?, header: [String], delimiter: CSVDelimiter, byteOrderMark: Bool = false, shownLimit: Int, printer: ErrorPrinter) throws {
        self.columnCount = header.count
        self.delimiter = delimiter.rawValue
        self.shownLimit = shownLimit
        self.printer = printer
        guard let path else {
            file = nil
            writer = nil
            return
        }
        let file = try OutputFile(path: path)
        self.file = file
        if byteOrderMark { try [UInt8]([0xEF, 0xBB, 0xBF]).withUnsafeBytes { try file.write($0) } }
        let writer = CSVWriter(configuration: .init(delimiter: delimiter.byte)) { bytes in try file.write(bytes) }
        self.writer = writer
        let reasonColumn = header.contains { $0.lowercased() == "reason" } ? "reject_reason" : "reason"
        try writer.writeRow(header + [reasonColumn])
    }

    /// Writes one refused row and shows it while few enough have been shown.
    func record(_ rejection: RowRejection) throws {
        try lock.withLock {
            count += 1
            if count <= min(shownLimit, Self.shownWarnings) {
                printer.warning("left out \(rejection.description)")
            } else if count == Self.shownWarnings + 1, shownLimit > Self.shownWarnings {
                printer.warning("more bad rows left out\(path.map { "; all of them are in \($0)" } ?? "")")
            }
            try writer?.writeRow(rectangular(rejection.fields) + [rejection.description])
        }
    }

    /// Ends the reject file: with `keeping`, puts it at its path whole; otherwise drops it and
    /// the path keeps what it had.
    func finish(keeping: Bool) throws {
        try lock.withLock {
            guard let file, let writer else { return }
            guard keeping else { return file.abandon() }
            do {
                try writer.flush()
                try file.commit()
            } catch {
                file.abandon()
                throw error
            }
        }
    }

    /// The fields padded or folded to the header's width, so the reject file stays a table: extra
    /// fields of a ragged row are joined, with the delimiter, into the last column.
    private func rectangular(_ fields: [String]) -> [String] {
        guard fields.count > columnCount, columnCount > 0 else {
            return fields + Array(repeating: "", count: max(0, columnCount - fields.count))
        }
        return Array(fields[..<(columnCount - 1)]) + [fields[(columnCount - 1)...].joined(separator: delimiter)]
    }
}
