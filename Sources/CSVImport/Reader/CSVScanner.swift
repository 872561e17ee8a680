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
    /// The separator's byte: the options', until the start of the input says otherwise.
    var delimiter: UInt8
    /// What ends a run of bytes in an unquoted field: the delimiter, a quote, a line break.
    var unquotedStops: StopBytes
    /// What ends a run of bytes in a quoted field: a quote or a line break.
    let quotedStops: StopBytes
    var source: any ByteSource
    /// Turns the source into UTF-8 when it is in another encoding.
    var transcoder: Transcoder?
    /// Bytes read ahead at the start (to choose the encoding and the separator), handed to
    /// the chunk buffer before the source is read again.
    var pending: [UInt8] = []
    /// How much of `pending` has been handed over.
    var pendingStart = 0
    /// A source failure met while topping up `pending`, thrown by the next read.
    var deferredReadFailure: CSVError?
    /// How the input is read; set before the first record.
    var format: CSVInputFormat?
    /// Blank lines and records of empty fields skipped so far.
    var emptyRowsSkipped = 0

    // MARK: Chunk buffer

    /// Room for one chunk plus the few bytes carried over from the previous one.
    let chunk: UnsafeMutablePointer<UInt8>
    /// `options.chunkSize` plus room for a carried incomplete UTF-8 sequence and one byte of
    /// look-ahead.
    let chunkCapacity: Int
    /// How many bytes `chunk` holds.
    var chunkCount = 0
    /// Parsing may go up to here: the end of the chunk, less an incomplete UTF-8 sequence at
    /// its end, or the first invalid sequence.
    var limit = 0
    /// The next byte to parse.
    var position = 0
    /// Offset of `chunk[0]` in the whole input.
    var chunkStartOffset = 0
    /// No byte will ever follow `limit`: the input ended.
    var limitIsFinal = false
    /// The source has returned 0.
    var sourceEnded = false
    /// The length of the invalid sequence at `limit` (0: none). Parsing reaches it, refuses
    /// the record it is in, and goes on after it.
    var invalidLength = 0
    /// The start of the input has been read: encoding, BOM and separator are settled.
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
        self.unquotedStops = StopBytes(options.delimiter.byte, ASCII.quote, ASCII.lineFeed, ASCII.carriageReturn)
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
        return nextByteIsKnown ? index + 1 : nil
    }

    /// Whether what follows `limit` is known not to be an LF or a quote: the input ends there,
    /// or an invalid sequence starts there.
    var nextByteIsKnown: Bool { limitIsFinal || invalidLength > 0 }

    // MARK: Reading

    /// Drops the parsed bytes before `position`, keeps the rest (a byte needing look-ahead, an
    /// incomplete UTF-8 sequence), reads the next chunk after them and checks its UTF-8.
    mutating func refill() throws(CSVError) {
        if !started {
            started = true
            try start()
        }
        settleFieldStartColumn()
        _ = column(at: position)
        let kept = chunkCount - position
        if kept > 0, position > 0 {
            UnsafeMutableRawPointer(chunk).copyMemory(from: chunk + position, byteCount: kept)
        }
        chunkStartOffset += position
        chunkCount = kept
        position = 0
        let room = UnsafeMutableRawBufferPointer(
            start: chunk + chunkCount, count: min(options.chunkSize, chunkCapacity - chunkCount))
        let count = try read(into: room)
        if count == 0 { sourceEnded = true }
        chunkCount += count
        checkText(from: 0)
    }

    /// Reads the next bytes of UTF-8 text: what was read ahead first (topped up from the source,
    /// so chunks still end at multiples of the chunk size), then the source, through the
    /// transcoder when there is one.
    mutating func read(into room: UnsafeMutableRawBufferPointer) throws(CSVError) -> Int {
        if pendingStart < pending.count {
            let count = min(room.count, pending.count - pendingStart)
            pending.withUnsafeBytes { bytes in
                room.baseAddress!.copyMemory(from: bytes.baseAddress! + pendingStart, byteCount: count)
            }
            pendingStart += count
            guard pendingStart == pending.count else { return count }
            pending = []
            pendingStart = 0
            guard count < room.count else { return count }
            do {
                return try count + readSource(into: UnsafeMutableRawBufferPointer(rebasing: room[count...]))
            } catch {
                // The bytes read ahead are parsed first; the failure waits for the next read.
                deferredReadFailure = error
                return count
            }
        }
        if var failure = deferredReadFailure {
            deferredReadFailure = nil
            failure.line = line
            failure.character = column(at: position)
            failure.byteOffset = offset(position)
            throw failure
        }
        return try readSource(into: room)
    }

    /// Reads the source, through the transcoder when there is one.
    private mutating func readSource(into room: UnsafeMutableRawBufferPointer) throws(CSVError) -> Int {
        do {
            if let transcoder { return try transcoder.read(into: room, from: &source) }
            return try source.read(into: room)
        } catch {
            throw CSVError(
                kind: .readFailed(String(describing: error)), line: line, character: column(at: position),
                field: nil, byteOffset: offset(position))
        }
    }

    /// Checks the UTF-8 of `chunk[start..<chunkCount]` and sets how far parsing may go.
    mutating func checkText(from start: Int) {
        invalidLength = 0
        switch checkUTF8(chunk + start, count: chunkCount - start) {
        case .valid:
            limit = chunkCount
            limitIsFinal = sourceEnded
        case .incompleteTail(let index):
            limit = start + index
            limitIsFinal = false
            if sourceEnded { invalidLength = chunkCount - limit }
        case .invalid(let index, let length):
            limit = start + index
            limitIsFinal = false
            invalidLength = length
        }
    }
}

/// The bytes the scanner looks for.
enum ASCII {
    static let quote = UInt8(ascii: "\"")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
}
