import CSVImport

/// Chunk sizes that put every byte of a short input on a chunk boundary at least once.
let tinyChunkSizes = Array(1...7)

/// A reader over `bytes` with the given chunk size and options.
func makeReader(_ bytes: [UInt8], chunkSize: Int = 64 * 1024, options: CSVReader.Options = .init()) -> CSVReader {
    var options = options
    options.chunkSize = chunkSize
    return CSVReader(source: MemoryByteSource(bytes), options: options)
}

/// Every record of `bytes`, as field texts.
func readFields(
    _ bytes: [UInt8], chunkSize: Int = 64 * 1024, options: CSVReader.Options = .init()
) throws -> [[String]] {
    try readRecords(bytes, chunkSize: chunkSize, options: options).map(\.fields)
}

/// Every record of `text`, as field texts.
func readFields(
    _ text: String, chunkSize: Int = 64 * 1024, options: CSVReader.Options = .init()
) throws -> [[String]] {
    try readFields(Array(text.utf8), chunkSize: chunkSize, options: options)
}

/// Every record of `bytes`.
func readRecords(
    _ bytes: [UInt8], chunkSize: Int = 64 * 1024, options: CSVReader.Options = .init()
) throws -> [CSVRecord] {
    let reader = makeReader(bytes, chunkSize: chunkSize, options: options)
    var records: [CSVRecord] = []
    while let record = try reader.next() {
        records.append(record)
    }
    return records
}

/// What a whole read produced: the records and the errors, going on after recoverable ones.
struct ReadOutcome: Equatable {
    var records: [[String]] = []
    var errors: [CSVError] = []
}

/// Reads `text` to the end, collecting records and errors as a caller with a reject file would.
func readCollectingErrors(
    _ text: String, chunkSize: Int = 64 * 1024, options: CSVReader.Options = .init()
) -> ReadOutcome {
    readCollectingErrors(Array(text.utf8), chunkSize: chunkSize, options: options)
}

/// Reads `bytes` to the end, collecting records and errors as a caller with a reject file would.
func readCollectingErrors(
    _ bytes: [UInt8], chunkSize: Int = 64 * 1024, options: CSVReader.Options = .init()
) -> ReadOutcome {
    let reader = makeReader(bytes, chunkSize: chunkSize, options: options)
    var outcome = ReadOutcome()
    while true {
        do {
            guard let record = try reader.next() else { return outcome }
            outcome.records.append(record.fields)
        } catch {
            outcome.errors.append(error)
            if !error.isRecoverable { return outcome }
        }
    }
}

/// The first error reading `text` throws, read with every tiny chunk size and a big one; all
/// of them must agree, and the one error is returned.
func firstError(_ text: String, options: CSVReader.Options = .init()) -> [CSVError] {
    firstError(Array(text.utf8), options: options)
}

/// The first error reading `bytes` throws, for each chunk size (tiny ones and 64 KiB).
func firstError(_ bytes: [UInt8], options: CSVReader.Options = .init()) -> [CSVError] {
    (tinyChunkSizes + [64 * 1024]).compactMap { chunkSize in
        readCollectingErrors(bytes, chunkSize: chunkSize, options: options).errors.first
    }
}
