import TaskCore

/// Reads, validates and batches the rows of one import, and counts what it saw.
///
/// Only one task at a time touches it — the batch being prepared is awaited before another is
/// started, and `stop()` waits for the last one — which is what makes `@unchecked Sendable`
/// true here: the reader, validator and counters never see two tasks at once.
final class ImportBatchProducer: @unchecked Sendable {
    /// How many rows go between two progress reports.
    private static let progressInterval = 1_024
    /// How many rejections are kept for the report; the rest are only counted.
    static let keptRejections = 100

    private let reader: CSVReader
    private var validator: TaskRowValidator
    private let directory: AssigneeDirectory
    private let batchSize: Int
    private let maxRejectedRows: Int
    private let onRejection: @Sendable (RowRejection) throws -> Void
    private let onProgress: @Sendable (ImportProgress) -> Void

    /// Data rows read, good or bad.
    private(set) var rowsRead = 0
    /// Rows refused.
    private(set) var rejected = 0
    /// The first refusals, for the report.
    private(set) var rejections: [RowRejection] = []
    private var ended = false
    /// Whether the duplicate check has been sized from the input's size.
    private var sized = false
    /// The batch being prepared while the store loads the previous one.
    private var inFlight: Task<[TaskImportDraft]?, any Error>?

    init(
        reader: CSVReader, validator: TaskRowValidator, directory: AssigneeDirectory, batchSize: Int, maxRejectedRows: Int,
        onRejection: @escaping @Sendable (RowRejection) throws -> Void, onProgress: @escaping @Sendable (ImportProgress) -> Void
    ) {
        self.reader = reader
        self.validator = validator
        self.directory = directory
        self.batchSize = batchSize
        self.maxRejectedRows = maxRejectedRows
        self.onRejection = onRejection
        self.onProgress = onProgress
    }

    /// The next batch, nil at the end; starts preparing the batch after it at once, so the
    /// file is read and checked while the store COPYs.
    func next() async throws -> [TaskImportDraft]? {
        let current = inFlight ?? Task { try await self.produce() }
        inFlight = nil
        let batch = try await withTaskCancellationHandler {
            try await current.value
        } onCancel: {
            current.cancel()
        }
        if batch != nil {
            inFlight = Task { try await self.produce() }
        }
        return batch
    }

    /// Cancels a batch still being prepared and waits for it, so the counters are final.
    func stop() async {
        inFlight?.cancel()
        _ = try? await inFlight?.value
        inFlight = nil
    }

    /// What the normalisation rules changed in the rows accepted so far.
    var normalisations: ImportNormalisations { validator.normalisations }

    /// Blank lines and rows of empty cells skipped so far.
    var emptyRowsSkipped: Int { reader.emptyRowsSkipped }

    /// The progress so far.
    var progress: ImportProgress {
        ImportProgress(rowsRead: rowsRead, bytesRead: reader.bytesConsumed, totalBytes: reader.totalByteCount)
    }

    /// Reads rows until a batch is full or the input ends.
    private func produce() async throws -> [TaskImportDraft]? {
        guard !ended else { return nil }
        var batch: [TaskImportDraft] = []
        batch.reserveCapacity(batchSize)
        while batch.count < batchSize {
            let record: CSVRecord
            do {
                guard let next = try reader.next() else {
                    ended = true
                    break
                }
                record = next
            } catch  where error.isRecoverable {
                rowsRead += 1
                try reject(RowRejection(error, header: validator.mapping.header))
                continue
            } catch {
                throw CSVImportFailure.unreadableInput(
                    error, rowsRead: rowsRead, rejected: rejected, header: error.header(in: validator.mapping.header))
            }
            rowsRead += 1
            if rowsRead % Self.progressInterval == 0 {
                try Task.checkCancellation()
                onProgress(progress)
            }
            do throws(RowRejection) {
                let row = try validator.parse(record)
                batch.append(try validator.draft(row, assignee: try await assignee(row)))
            } catch {
                try reject(error)
            }
        }
        onProgress(progress)
        if !sized { sizeDuplicateCheck() }
        return batch.isEmpty && ended ? nil : batch
    }

    /// After the first batch: the rows the whole input will have, from its size and the bytes
    /// per row so far (plus 5%), so the duplicate check is allocated once.
    private func sizeDuplicateCheck() {
        sized = true
        let consumed = reader.bytesConsumed
        guard let total = reader.totalByteCount, consumed > 0, rowsRead > 0, !ended else { return }
        let estimate = Double(total) / Double(consumed) * Double(rowsRead) * 1.05
        validator.expectRows(Int(min(estimate, 100_000_000)))
    }

    /// The assignee of a parsed row, judged by the directory.
    private func assignee(_ row: TaskRowValidator.ParsedRow) async throws(RowRejection) -> UserRef? {
        guard let email = row.assigneeEmail else { return nil }
        do {
            return try await directory.assignee(email)
        } catch {
            throw validator.rejection(row.record, field: .assignee, error)
        }
    }

    /// Counts and reports a refused row; past the allowance the import stops.
    private func reject(_ rejection: RowRejection) throws {
        rejected += 1
        if rejections.count < Self.keptRejections { rejections.append(rejection) }
        try onRejection(rejection)
        if rejected > maxRejectedRows {
            throw CSVImportFailure.tooManyRejectedRows(limit: maxRejectedRows, rejected: rejected, rowsRead: rowsRead, last: rejection)
        }
    }
}
