import Migrations

/// Parses `text` as the migration file `fileName`, for tests that need no folder.
func migration(_ text: String, fileName: String = "0001_test.sql") throws -> MigrationFile {
    try MigrationFile.parse(fileName: fileName, path: "migrations/" + fileName, bytes: Array(text.utf8))
}
