import PGStore
/// What a run is doing, for progress output. Delivered in order, on the running task.
public enum MigrationEvent: Sendable {
    /// Another runner holds the migration lock; this one polls until it is free.
    case waitingForMigrationLock(holder: String?)
    /// The migration lock is held; the history was re-read.
    case migrationLockAcquired
    /// A migration starts (or, for `down`, its rollback).
    case starting(MigrationFile, direction: MigrationDirection)
    /// A migration finished and its history change committed.
    case finished(MigrationFile, direction: MigrationDirection, milliseconds: Int64)
    /// A pending file has a finding about the schema it leaves (a type choice, a SECURITY
    /// DEFINER search_path) that `lint` fails on but that does not make applying it dangerous,
    /// so `up` applies it and says so.
    case lintWarning(LintFinding)
    /// An applied file's history row held a checksum a reviewed comment-only edit superseded
    /// (`superseded-checksums`); it now holds the file's checksum.
    case checksumRecorded(MigrationFile, previous: String)
    /// A migration hit its lock timeout and will be tried again after `delay`.
    case retrying(MigrationFile, attempt: Int, of: Int, delay: Duration, blocker: LockBlocker?)
    /// A concurrent build of the migration's index is still running in backend `pid` (left by
    /// a killed run); this run waits for it to end.
    case waitingForIndexBuild(MigrationFile, index: String, pid: Int32)
    /// The migration's index already exists and is valid (an earlier run built it and was
    /// killed before recording it): recorded as applied without building it again.
    case recordedExistingIndex(MigrationFile, index: String)
}

/// Which way a migration runs.
public enum MigrationDirection: String, Sendable {
    /// Its up section: applying it.
    case up
    /// Its down section: rolling it back.
    case down
}
