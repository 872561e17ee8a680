import Foundation

/// The folder and the history disagree: an applied file changed, an applied file is gone, or a
/// new file is numbered below the newest applied one. Nothing runs until it is resolved.
public struct MigrationDriftError: Error, Sendable, CustomStringConvertible {
    /// One disagreeing migration.
    public struct Problem: Sendable {
        /// The file's path (or, when it is gone, the name the history remembers).
        public var path: String
        /// Changed, missing or out of order.
        public var state: MigrationState
        /// The checksum recorded when it was applied.
        public var recordedChecksum: String?
        /// The checksum of the file now.
        public var fileChecksum: String?
        /// When it was applied.
        public var appliedAt: Date?
        /// The version, for the line a reviewed comment-only edit adds to `superseded-checksums`.
        public var version: Int64
        /// The fingerprint of the file's statements now (`MigrationFile.statementsFingerprint`).
        public var statementsFingerprint: String?

        init(entry: MigrationPlan.Entry) {
            path = entry.displayPath
            state = entry.state
            recordedChecksum = entry.record?.checksum
            fileChecksum = entry.file?.checksum
            appliedAt = entry.record?.appliedAt
            version = entry.version
            statementsFingerprint = entry.file?.name == entry.record?.name ? entry.file?.statementsFingerprint : nil
        }
    }

    /// Every problem found, in version order.
    public var problems: [Problem]
    /// The newest applied version, for out-of-order messages.
    public var newestApplied: Int64?

    /// One line per problem, each naming the file and what to do.
    public var description: String {
        problems.map { problem in
            let applied = problem.appliedAt.map { " at \($0.formatted(.iso8601))" } ?? ""
            switch problem.state {
            case .changed:
                return
                    "\(problem.path): changed after it was applied\(applied) (checksum \(problem.recordedChecksum?.prefix(12) ?? "?")… is now \(problem.fileChecksum?.prefix(12) ?? "?")…); restore the applied file and put the change in a new migration\(problem.commentEditLine)"
            case .missing:
                return "\(problem.path): applied\(applied) but the file is gone; restore it from version control"
            case .outOfOrder:
                return
                    "\(problem.path): not applied, yet numbered below \(newestApplied.map(String.init) ?? "?"), the newest applied migration; renumber it above"
            case .ahead:
                return
                    "\(problem.path): applied\(applied), newer than every file in this folder: a newer release's migration, or a file "
                    + "deleted or a wrong --dir; restore the file, or if the programs were rolled back on purpose run up with --allow-newer "
                    + "(down needs the newer release's taskmigrate)"
            case .applied, .pending:
                return "\(problem.path): \(problem.state.rawValue)"
            }
        }.joined(separator: "\n")
    }
}

extension MigrationDriftError.Problem {
    /// For a changed file whose name is unchanged: the line that would accept the change as a
    /// reviewed comment-only edit (refused at load when the statements differ after all).
    var commentEditLine: String {
        guard let recordedChecksum, let statementsFingerprint, recordedChecksum != fileChecksum else { return "" }
        return
            "; if only comments changed, and a reviewer agrees, add this line to migrations/\(SupersededChecksums.fileName) instead: \(version) \(recordedChecksum) \(statementsFingerprint)"
    }
}
