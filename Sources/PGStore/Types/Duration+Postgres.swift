extension Duration {
    /// Whole milliseconds, rounded up, as PostgreSQL settings take them (`"5000ms"`).
    public var postgresSetting: String {
        "\(milliseconds)ms"
    }

    /// A duration as people read it, in PostgreSQL's units: whole milliseconds (rounded up) in
    /// the largest unit that shows them exactly, `5s`, `15min`, `250ms`; zero, which means no
    /// limit wherever a duration is a limit, as `none`. The one formatter of every program's
    /// help and messages and of the Migrations module's errors.
    public var displayText: String {
        let milliseconds = milliseconds
        guard milliseconds > 0 else { return "none" }
        for (unit, size) in [("h", Int64(3_600_000)), ("min", 60_000), ("s", 1000)] where milliseconds % size == 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }

    /// Whole milliseconds, rounded up.
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}
