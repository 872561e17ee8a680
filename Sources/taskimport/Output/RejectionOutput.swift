import CSVImport
import CommandLineToolkit
import Foundation

/// Where refused rows go: the reject file (the row's fields as read plus a reason column, via
/// the toolkit's `CSVWriter`) and, for the first few within `--max-errors`, a warning on stderr.
///
/// The importer calls `record` from one task at a time; the lock makes that safe to rely on.
final class RejectionOutput: @unchecked Sendable {
    /// How many refusals are shown on stderr; the reject file has them all.
    private static let shownWarnings = 20

    /// The reject file's path, if there is one.
    let path: String?
    private let writer: CSVWriter?
    private let handle: FileHandle?
    private let columnCount: Int
    private let delimiter: String
    private let shownLimit: Int
    private let printer: ErrorPrinter
    private let lock = NSLock()
    private var count = 0

    /// Creates (or empties) the reject file at `path` and writes its header: `header` plus `reason`.
    init(path: String?, header: [String], delimiter: CSVDelimiter, shownLimit: Int, printer: ErrorPrinter) throws {
        self.path = path
        self.columnCount = header.count
        self.delimiter = delimiter.rawValue
        self.shownLimit = shownLimit
        self.printer = printer
        guard let path else {
            writer = nil
            handle = nil
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw CommandFailure("cannot create the reject file \(path); check the folder exists and is writable")
        }
        self.handle = handle
        let writer = CSVWriter(fileHandle: handle, configuration: .init(delimiter: delimiter.byte))
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

    /// Flushes and closes the reject file.
    func close() throws {
        try lock.withLock {
            try writer?.flush()
            try handle?.close()
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
