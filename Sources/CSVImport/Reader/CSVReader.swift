import Foundation

/// A streaming RFC 4180 reader: pulls bytes from a `ByteSource` one chunk at a time and hands
/// out one `CSVRecord` per call, so memory stays flat whatever the input's size.
///
/// It accepts UTF-8 with or without a BOM (dropped), UTF-16 (a byte-order mark is enough),
/// Windows-1252 and Latin-1 (`Options.encoding`), a first line `sep=X` as Excel writes it,
/// CRLF, LF or CR line breaks (mixed too), quoted fields holding delimiters, doubled quotes
/// and line breaks, and a last line with or without a line break. Problems are `CSVError`s
/// with a line, field and character; bytes that are not text in the encoding spoil only
/// their record.
///
/// ```swift
/// let reader = try CSVReader(path: "tasks.csv", options: .init(delimiter: .semicolon))
/// while let record = try reader.next() {
///     print(record.line, record.fields)
/// }
/// ```
///
/// The first record is the header: with `requiresSameFieldCount` (the default) every later
/// record must have as many fields. A reader is used by one task at a time.
public final class CSVReader {
    private var scanner: CSVScanner

    /// The options the reader was made with.
    public let options: Options
    /// The input's total size when known (regular files, memory), for progress in percent.
    public let totalByteCount: Int?

    /// A reader over any byte source.
    public init(source: any ByteSource, options: Options = Options()) {
        self.options = options
        self.totalByteCount = source.totalByteCount
        self.scanner = CSVScanner(source: source, options: options)
    }

    /// A reader over the file at `path`, closed when the reader is released.
    public convenience init(path: String, options: Options = Options()) throws(ByteSourceError) {
        self.init(source: try FileByteSource(path: path), options: options)
    }

    /// A reader over standard input.
    public static func standardInput(options: Options = Options()) -> CSVReader {
        CSVReader(source: FileByteSource.standardInput(), options: options)
    }

    deinit {
        scanner.chunk.deallocate()
        scanner.record.deallocate()
    }

    /// The next record, or `nil` at the end of the input.
    ///
    /// A thrown error with `isRecoverable` has consumed its record (attached to the error), and
    /// the next call continues after it; after any other error the reader is done.
    public func next() throws(CSVError) -> CSVRecord? {
        try scanner.nextRecord()
    }

    /// How many bytes of the input have been parsed so far (a BOM included); for an input in
    /// another encoding than UTF-8, an estimate in the file's bytes, for progress.
    public var bytesConsumed: Int {
        let parsed = scanner.offset(scanner.position)
        guard let transcoder = scanner.transcoder, transcoder.bytesProduced > 0 else { return parsed }
        let buffered = transcoder.bytesProduced - parsed
        let ratio = Double(transcoder.fileOffset) / Double(transcoder.bytesProduced)
        return max(0, transcoder.fileOffset - Int(Double(max(0, buffered)) * ratio))
    }

    /// How the input is read (encoding, byte-order mark, separator and where it came from);
    /// nil until the first `next()` has read the start of the input.
    public var format: CSVInputFormat? {
        scanner.format
    }

    /// Blank lines and records whose every field is empty, skipped so far.
    public var emptyRowsSkipped: Int {
        scanner.emptyRowsSkipped
    }
}
