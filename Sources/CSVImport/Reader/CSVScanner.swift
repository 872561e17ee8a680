/// The state of a `CSVReader` between two records: the chunk buffer and where parsing stands
/// in it, line and column bookkeeping, and the record being built.
///
/// A struct so that its hot loops touch stored properties without the dynamic exclusivity
/// checks a class property costs; `CSVReader` owns it and frees the chunk buffer.
struct CSVScanner {
    /// Where the scanner is inside a record.
    enum State {
        /// Before the first byte of a record (blank lines are skipped here).
        case recordStart
        /// Before the first byte of a field.
        case fieldStart
        /// Inside a field that did not start with a quote.
        case unquoted
        /// Inside a quoted field.
        case quoted
        /// Right after the quote that closed a quoted field.
        case afterClosingQuote
    }

    let options: CSVReader.Options
    let delimiter: UInt8
    /// What ends a run of bytes in an unquoted field: the delimiter, a quote, a line break.
    let unquotedStops: StopBytes
    /// What ends a run of bytes in a quoted field: a quote or a line break.
    let quotedStops: StopBytes
    var source: any ByteSource

    // MARK: Chunk buffer

    /// Room for one chunk plus the few bytes carried over from the previous one.
    let chunk: UnsafeMutablePointer<UInt8>
    /// `options.chunkSize` plus room for a carried incomplete UTF-8 sequence and one byte of
    /// look-ahead.
    let chunkCapacity: Int
    /// How many bytes `chunk` holds.
    var chunkCount = 0
    /// Parsing may go up to here: the end of the chunk, less an incomplete UTF-8 sequence at
    /// its end, or the first invalid byte.
    var limit = 0
    /// The next byte to parse.
    var position = 0
    /// Offset of `chunk[0]` in the whole input.
    var chunkStartOffset = 0
    /// No byte will ever follow `limit`: the input ended, or invalid UTF-8 starts there.
    var limitIsFinal = false
    /// The source has returned 0.
    var sourceEnded = false
    /// Invalid UTF-8 at `limit`: its first byte. Reported once parsing reaches it.
    var invalidByte: UInt8?
    /// The first chunk has been read and a BOM dropped.
    var started = false
    /// The input has ended or a fatal error was reported: no more records.
    var finished = false

    // MARK: Lines and columns

    /// 1-based physical line of `position`.
    var line = 1
    /// Offset in the input where the current line starts.
    var lineStartOffset = 0
    /// A point of the current line whose column is known, so columns are counted forward from
    /// there and each byte is counted at most once; never before the start of the chunk.
    var checkpointOffset = 0
    /// Characters between `lineStartOffset` and `checkpointOffset`.
    var checkpointColumn = 0

    // MARK: The record being built

    var state = State.recordStart
    /// Field bytes (unquoted) and field ends of the record so far.
    var record = RecordBuffer()
    /// Line on which the record starts.
    var recordLine = 1
    /// Offset in the input of the current field's first byte (its opening quote, if any).
    var fieldStartOffset = 0
    /// Line of the current field's first byte.
    var fieldStartLine = 1
    /// Column of the current field's first byte, counted only when it may be needed: when the
    /// field opens with a quote, and before the chunk holding its start is dropped.
    var fieldStartColumn: Int?
    /// Where the current field starts in the record's bytes.
    var fieldStartInRecord = 0
    /// The first malformed-quote problem of the record; thrown once the record is complete.
    var recordProblem: CSVError?
    /// Line and column where the first field beyond the expected count starts.
    var extraFieldPlace: (line: Int, column: Int)?
    /// Line and column where a record with too few fields ends.
    var shortRecordEndPlace: (line: Int, column: Int)?
    /// The field count every record must have: the first record's, once it is read.
    var expectedFieldCount: Int?

    init(source: any ByteSource, options: CSVReader.Options) {
        self.source = source
        self.options = options
        self.delimiter = options.delimiter.byte
        self.unquotedStops = StopBytes(delimiter, ASCII.quote, ASCII.lineFeed, ASCII.carriageReturn)
        self.quotedStops = StopBytes(ASCII.quote, ASCII.quote, ASCII.lineFeed, ASCII.carriageReturn)
        self.chunkCapacity = options.chunkSize + 4
        self.chunk = .allocate(capacity: chunkCapacity)
    }

    /// Offset in the whole input of `chunk[index]`.
    func offset(_ index: Int) -> Int { chunkStartOffset + index }

    // MARK: Columns

    /// The 1-based column of `chunk[index]`, which must not lie before the checkpoint; moves
    /// the checkpoint there.
    mutating func column(at index: Int) -> Int {
        let from = checkpointOffset - chunkStartOffset
        checkpointColumn += countScalars(chunk, from: from, to: index)
        checkpointOffset = offset(index)
        return checkpointColumn + 1
    }

    /// Counts the current field's start column while its bytes are still in the chunk; call
    /// before any column further into the field is taken.
    mutating func settleFieldStartColumn() {
        guard fieldStartColumn == nil, state != .recordStart, state != .fieldStart else { return }
        fieldStartColumn = column(at: fieldStartOffset - chunkStartOffset)
    }

    /// Bookkeeping for a line break that ends just before `chunk[index]`.
    mutating func startLine(at index: Int) {
        line += 1
        lineStartOffset = offset(index)
        checkpointOffset = lineStartOffset
        checkpointColumn = 0
    }

    /// Where the line break starting at `chunk[index]` (CR, LF or CRLF) ends, or `nil` when a
    /// CR is the last byte available and the next chunk must say whether an LF follows.
    func lineBreakEnd(at index: Int) -> Int? {
        guard chunk[index] == ASCII.carriageReturn else { return index + 1 }
        if index + 1 < limit {
            return chunk[index + 1] == ASCII.lineFeed ? index + 2 : index + 1
        }
        return limitIsFinal ? index + 1 : nil
    }

    // MARK: Reading

    /// Drops the parsed bytes before `position`, keeps the rest (a byte needing look-ahead, an
    /// incomplete UTF-8 sequence), reads the next chunk after them and checks its UTF-8.
    mutating func refill() throws(CSVError) {
        settleFieldStartColumn()
        _ = column(at: position)
        let kept = chunkCount - position
        if kept > 0, position > 0 {
            UnsafeMutableRawPointer(chunk).copyMemory(from: chunk + position, byteCount: kept)
        }
        chunkStartOffset += position
        chunkCount = kept
        position = 0
        repeat {
            let room = UnsafeMutableRawBufferPointer(
                start: chunk + chunkCount, count: min(options.chunkSize, chunkCapacity - chunkCount))
            let count: Int
            do {
                count = try source.read(into: room)
            } catch {
                throw CSVError(
                    kind: .readFailed(String(describing: error)), line: line,
                    column: column(at: 0), field: nil, byteOffset: chunkStartOffset)
            }
            if count == 0 { sourceEnded = true }
            chunkCount += count
        } while !started && chunkCount < 3 && !sourceEnded
        if !started {
            started = true
            dropByteOrderMark()
        }
        switch checkUTF8(chunk, count: chunkCount) {
        case .valid:
            limit = chunkCount
            limitIsFinal = sourceEnded
        case .incompleteTail(let index):
            limit = index
            limitIsFinal = sourceEnded
            if sourceEnded { invalidByte = chunk[index] }
        case .invalid(let index, let byte):
            limit = index
            limitIsFinal = true
            invalidByte = byte
        }
    }

    /// Skips a UTF-8 byte-order mark at the very start; it belongs to no line or column.
    private mutating func dropByteOrderMark() {
        guard chunkCount >= 3, chunk[0] == 0xEF, chunk[1] == 0xBB, chunk[2] == 0xBF else { return }
        position = 3
        lineStartOffset = 3
        checkpointOffset = 3
    }
}

/// The bytes the scanner looks for.
enum ASCII {
    static let quote = UInt8(ascii: "\"")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
}
