extension Duration {
    /// Whole milliseconds, rounded up, as PostgreSQL settings take them (`"5000ms"`).
    public var postgresSetting: String {
        "\(milliseconds)ms"
    }

    /// Whole milliseconds, rounded up.
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}
