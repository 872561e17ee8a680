import CommandLineToolkit
import TaskCore

/// Reads the words of a command line that TaskCore knows how to parse (task and team keys,
/// cursors, dates, "none"), turning a word that cannot be read into a usage error (exit 2)
/// that names the option, so a typo is told apart from a value the service refuses (exit 6).
extension ParsedValues {
    /// The word a person writes to clear an optional value (`--due none`, `assign CORE-1 none`).
    static let noneWord = "none"

    /// The task key in positional or option `name`, e.g. `CORE-42`.
    func taskKey(_ name: String = "key") throws(UsageError) -> TaskKey {
        let text = requiredString(name)
        return try Self.read("task key", text, expected: "a key like CORE-42") { try TaskKey(parsing: text) }
    }

    /// The team key in `name` (an option such as `--team`, or a positional).
    func teamKey(_ name: String = "team") throws(UsageError) -> TeamKey {
        let text = requiredString(name)
        return try Self.read("team key", text, expected: "2 to 10 letters and digits starting with a letter, like CORE") { try TeamKey(text) }
    }

    /// The user named in `name` (an email, or `#42` for a user id).
    func userRef(_ name: String) -> UserRef {
        UserRef(requiredString(name))
    }

    /// The date in option `name`, if given, resolved against `today`.
    func date(_ name: String, today: CalendarDate) throws(UsageError) -> CalendarDate? {
        guard let text = string(name) else { return nil }
        guard let date = DueDateExpression.resolve(text, today: today) else {
            throw UsageError("invalid value '\(text)' for '--\(name)': expected \(DueDateExpression.accepted)")
        }
        return date
    }

    /// The page cursor in option `name`, if given.
    func cursor(_ name: String) throws(UsageError) -> TaskCursor? {
        guard let text = string(name) else { return nil }
        return try Self.read("cursor", text, expected: "the cursor a previous page printed") { try TaskCursor(encoded: text) }
    }

    /// An optional value that `none` clears: nil when absent, `.set(nil)` for `none`.
    func clearable(_ name: String) -> Patch<String?> {
        guard let text = string(name) else { return .unchanged }
        return .set(text.lowercased() == Self.noneWord ? nil : text)
    }

    /// Converts a TaskCore parse failure of a command-line word into a usage error.
    private static func read<T>(_ what: String, _ text: String, expected: String, _ parse: () throws -> T) throws(UsageError) -> T {
        do {
            return try parse()
        } catch {
            throw UsageError("invalid \(what) '\(text)': expected \(expected)")
        }
    }
}
