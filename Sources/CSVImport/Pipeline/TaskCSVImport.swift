import Foundation
import TaskCore

/// A CSV file of tasks on its way into a team: read, checked row by row with TaskCore's rules,
/// and handed in batches to the service's import port, which merges them all or nothing.
///
/// ```swift
/// let reader = try CSVReader(path: "tasks.csv")
/// let file = try TaskCSVImport(reader: reader, overrides: [])      // reads and maps the header
/// let report = try await file.run(
///     service: service, settings: .init(team: try TeamKey("CORE"), actor: .email("ann@example.com")),
///     onRejection: { print($0) })
/// print(report.summary.inserted)
/// ```
///
/// Memory stays flat: one batch is being merged while the next is read, and the file is never
/// held whole. Bad rows go to `onRejection`; more of them than `maxRejectedRows` stop the
/// import, and then nothing is written.
public final class TaskCSVImport {
    /// How many refused rows a report keeps with their reasons; the rest are only counted (the
    /// reject file, where there is one, has them all). Memory stays flat however many are refused.
    public static let keptRejections = ImportBatchProducer.keptRejections

    /// What to import into, as whom, and how strictly.
    public struct Settings: Sendable {
        /// The team that receives the tasks.
        public var team: TeamKey
        /// Who imports (a member or above).
        public var actor: UserRef
        /// What to do with rows whose external id the team already has.
        public var policy: ImportConflictPolicy
        /// Report what would happen and write nothing.
        public var dryRun: Bool
        /// How many bad rows may be left out before the import stops (0: none).
        public var maxRejectedRows: Int
        /// Rows per batch handed to the store.
        public var batchSize: Int

        /// Settings for importing into `team` as `actor`.
        public init(
            team: TeamKey, actor: UserRef, policy: ImportConflictPolicy = .update, dryRun: Bool = false,
            maxRejectedRows: Int = 0, batchSize: Int = 5_000
        ) {
            precondition(batchSize > 0, "batchSize must be positive")
            self.team = team
            self.actor = actor
            self.policy = policy
            self.dryRun = dryRun
            self.maxRejectedRows = max(0, maxRejectedRows)
            self.batchSize = batchSize
        }
    }

    /// Which column fills which field, from the header row.
    public let mapping: HeaderMapping
    private let reader: CSVReader

    /// How the file is read (encoding, separator and where they came from), known once the
    /// header has been read.
    public var format: CSVInputFormat? { reader.format }

    /// Reads the header row of `reader` and maps it (with `overrides` first), so a file without
    /// a title column fails here, before any database work.
    public init(reader: CSVReader, overrides: [ColumnOverride] = []) throws(CSVImportFailure) {
        let header: CSVRecord
        do {
            guard let first = try reader.next() else { throw CSVImportFailure.emptyInput }
            header = first
        } catch let error as CSVError {
            throw .malformedHeader(error)
        } catch {
            throw .emptyInput
        }
        do {
            mapping = try HeaderMapping(header: header.fields, overrides: overrides)
        } catch {
            throw .unusableHeader(error, line: header.line)
        }
        self.reader = reader
    }

    /// Imports every data row. Throws `CSVImportFailure` for the file's faults and `TaskError`
    /// (or the store's errors) for the service's refusals; either way nothing was written.
    public func run(
        service: TaskService, settings: Settings,
        onRejection: @escaping @Sendable (RowRejection) throws -> Void = { _ in },
        onProgress: @escaping @Sendable (ImportProgress) -> Void = { _ in }
    ) async throws -> ImportReport {
        let started = ContinuousClock.now
        let members = try await service.members(of: settings.team, as: settings.actor)
        let producer = ImportBatchProducer(
            reader: reader, validator: TaskRowValidator(mapping: mapping),
            directory: AssigneeDirectory(service: service, team: settings.team, members: members, actor: settings.actor),
            batchSize: settings.batchSize, maxRejectedRows: settings.maxRejectedRows,
            onRejection: onRejection, onProgress: onProgress)
        let summary: ImportSummary
        do {
            summary = try await service.importTasks(
                into: settings.team, policy: settings.policy, dryRun: settings.dryRun,
                batches: ImportBatches(producer: producer), as: settings.actor)
        } catch {
            await producer.stop()
            throw error
        }
        await producer.stop()
        let elapsed = started.duration(to: .now)
        return ImportReport(
            rowsRead: producer.rowsRead, rejected: producer.rejected, emptyRowsSkipped: producer.emptyRowsSkipped,
            format: reader.format, normalisations: producer.normalisations, summary: summary, dryRun: settings.dryRun,
            seconds: elapsed.seconds,
            rejections: producer.rejections)
    }
}
