import Foundation

/// The reviewed comment-only edits of applied migrations: for a version, a checksum it was
/// once applied with and the fingerprint of its statements, which must still match the file.
///
/// Every deployed database records each applied file's SHA-256, so changing a comment in an
/// applied file would read as drift everywhere. An edit listed here is accepted instead, and
/// only while the file's statements and directives are exactly those the line names: an edit
/// that changed SQL is still drift, however it is listed. `up` then re-records the new checksum.
public struct SupersededChecksums: Sendable, Equatable {
    /// The file's name inside the migrations folder; it is not a `.sql` file, so it is never run.
    public static let fileName = "superseded-checksums"

    /// One accepted edit: a line of the file.
    public struct Entry: Sendable, Equatable {
        /// The migration's version.
        public var version: Int64
        /// The SHA-256 a database may have recorded for it (the file before the edit).
        public var checksum: String
        /// The statements' fingerprint both before and after the edit (`MigrationFile.statementsFingerprint`).
        public var fingerprint: String
        /// The 1-based line in the file, for messages.
        public var line: Int
    }

    /// The entries, in file order.
    public var entries: [Entry]

    /// Reads `text`, one entry per line: `VERSION CHECKSUM FINGERPRINT`, then an optional note;
    /// `#` starts a comment, blank lines are ignored. `path` is only used in messages.
    public static func parse(_ text: String, path: String) throws(MigrationFileError) -> SupersededChecksums {
        var entries: [Entry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = rawLine.prefix { $0 != "#" }
            let words = content.split(whereSeparator: \.isWhitespace).map(String.init)
            guard !words.isEmpty else { continue }
            let line = index + 1
            guard words.count >= 3, let version = Int64(words[0]), version > 0 else {
                throw MigrationFileError(
                    path: path, line: line, message: "expected VERSION CHECKSUM FINGERPRINT (taskmigrate verify prints the line to add)")
            }
            for word in words[1...2] where !isHexDigest(word) {
                throw MigrationFileError(path: path, line: line, message: "\"\(word)\" is not a SHA-256 in lowercase hex (64 digits)")
            }
            entries.append(Entry(version: version, checksum: words[1], fingerprint: words[2], line: line))
        }
        return SupersededChecksums(entries: entries)
    }

    /// `files` with each one's accepted earlier checksums filled in. An entry whose version has
    /// no file, or whose fingerprint is not the file's, is an error naming its line: the edit
    /// it stands for changed more than comments, or its file is gone.
    public func apply(to files: [MigrationFile], path: String) throws(MigrationFileError) -> [MigrationFile] {
        var files = files
        for entry in entries {
            guard let index = files.firstIndex(where: { $0.version == entry.version }) else {
                throw MigrationFileError(path: path, line: entry.line, message: "no migration file has version \(entry.version); remove the line")
            }
            let file = files[index]
            guard file.statementsFingerprint == entry.fingerprint else {
                throw MigrationFileError(
                    path: path, line: entry.line,
                    message:
                        "\(file.fileName)'s statements are no longer the ones this comment edit was reviewed with (fingerprint \(entry.fingerprint.prefix(12))… is now \(file.statementsFingerprint.prefix(12))…); only comments of an applied file may change: restore its statements and put the change in a new migration"
                )
            }
            files[index].supersededChecksums.insert(entry.checksum)
        }
        return files
    }

    private static func isHexDigest(_ word: String) -> Bool {
        word.utf8.count == 64
            && word.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
