import Foundation
import SafeText

/// Writes RFC 4180 CSV row by row into a buffer that is handed to a sink when full, so an
/// export of any size uses flat memory.
///
/// A field is quoted when it holds the delimiter, a quote, CR or LF, or starts or ends with a
/// space or tab; quotes inside are doubled. An empty string is written as `""` and a nil field
/// as nothing, as PostgreSQL's CSV format does, so "empty" and "missing" stay apart.
/// Call `flush()` at the end: nothing is written on deinit.
public final class CSVWriter {
    /// How rows are written.
    public struct Configuration: Sendable {
        /// The field separator: one ASCII byte other than a quote, CR or LF.
        public var delimiter: UInt8
        /// What ends each row.
        public var lineEnding: String
        /// How many bytes collect before they are handed to the sink.
        public var bufferCapacity: Int
        /// Show escape sequences and invisible characters escaped (`TerminalText.escape`), for
        /// CSV written to a terminal; off, every field is written exactly.
        public var escapesForTerminal = false
        /// Start a field that begins with `=`, `+`, `-`, `@`, a tab or CR with `'`, so a
        /// spreadsheet shows it as text instead of running it as a formula.
        public var defusesFormulas = false

        /// Comma-separated, CRLF line endings as RFC 4180 specifies, 64 KiB buffer.
        public init(delimiter: UInt8 = UInt8(ascii: ","), lineEnding: String = "\r\n", bufferCapacity: Int = 64 * 1024) {
            precondition(Self.isValidDelimiter(delimiter), "a CSV delimiter must be one ASCII byte other than a quote, CR or LF")
            self.delimiter = delimiter
            self.lineEnding = lineEnding
            self.bufferCapacity = bufferCapacity
        }

        /// The settings for CSV on standard output: escaped when a person watches a terminal.
        public static func standardOutput(defusesFormulas: Bool = false) -> Configuration {
            var configuration = file(defusesFormulas: defusesFormulas)
            configuration.escapesForTerminal = StandardStream.standardOutput.isTerminal
            return configuration
        }

        /// The settings for CSV written to a file: every field exactly as it is.
        public static func file(defusesFormulas: Bool = false) -> Configuration {
            var configuration = Configuration()
            configuration.defusesFormulas = defusesFormulas
            return configuration
        }

        /// Whether `byte` can separate fields; check user input (`--delimiter`) with it first.
        public static func isValidDelimiter(_ byte: UInt8) -> Bool {
            byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\r") && byte != UInt8(ascii: "\n")
        }
    }

    /// The settings in use.
    public let configuration: Configuration
    private let buffer: BufferedOutput

    /// A writer that hands full buffers to `sink`, e.g. to collect them in memory.
    public init(configuration: Configuration = Configuration(), sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.configuration = configuration
        self.buffer = BufferedOutput(capacity: configuration.bufferCapacity, sink: sink)
    }

    /// A writer to an open file descriptor.
    public convenience init(fileDescriptor: Int32, configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, sink: BufferedOutput.writing(to: fileDescriptor))
    }

    /// A writer to standard output or standard error.
    public convenience init(stream: StandardStream, configuration: Configuration = Configuration()) {
        self.init(fileDescriptor: stream.fileDescriptor, configuration: configuration)
    }

    /// A writer to an open `FileHandle`, which must outlive the writer.
    public convenience init(fileHandle: FileHandle, configuration: Configuration = Configuration()) {
        self.init(fileDescriptor: fileHandle.fileDescriptor, configuration: configuration)
    }

    /// Appends one row; nil fields are written as nothing at all.
    public func writeRow(_ fields: [String?]) throws {
        for (index, field) in fields.enumerated() {
            if index > 0 { buffer.append(configuration.delimiter) }
            if let field { append(field) }
        }
        buffer.append(contentsOf: configuration.lineEnding.utf8)
        try buffer.flushIfFull()
    }

    /// Appends one row of present fields.
    public func writeRow(_ fields: [String]) throws {
        try writeRow(fields.map { Optional($0) })
    }

    /// Hands everything buffered to the sink.
    public func flush() throws {
        try buffer.flush()
    }

    /// `rows` as one CSV string, for small outputs and tests.
    public static func format(_ rows: [[String?]], configuration: Configuration = Configuration()) -> String {
        var collected: [UInt8] = []
        let writer = CSVWriter(configuration: configuration) { collected.append(contentsOf: $0) }
        for row in rows { try? writer.writeRow(row) }
        try? writer.flush()
        return String(decoding: collected, as: UTF8.self)
    }

    /// The characters a spreadsheet reads as the start of a formula.
    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    private func append(_ text: String) {
        var field = configuration.escapesForTerminal ? TerminalText.escape(text) : text
        if configuration.defusesFormulas, let first = field.first, Self.formulaStarts.contains(first) { field = "'" + field }
        // Over the field's contiguous UTF-8 (a native string's own storage): a generic walk of
        // the UTF8View was a tenth of `taskctl export`'s time.
        field.withUTF8 { bytes in
            guard needsQuotes(bytes) else { return buffer.append(contentsOf: bytes) }
            buffer.append(UInt8(ascii: "\""))
            for byte in bytes {
                if byte == UInt8(ascii: "\"") { buffer.append(byte) }
                buffer.append(byte)
            }
            buffer.append(UInt8(ascii: "\""))
        }
    }

    private func needsQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return true }
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        if first == space || first == tab || last == space || last == tab { return true }
        let delimiter = configuration.delimiter
        for byte in bytes where byte == delimiter || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
            return true
        }
        return false
    }
}
