/// Facts about the migration tool itself.
public enum MigrationTool {
    /// Recorded with every applied migration, and printed by `taskmigrate --version`.
    public static let version = "0.1.0"
}
