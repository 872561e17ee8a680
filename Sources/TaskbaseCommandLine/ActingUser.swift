import CommandLineToolkit
import TaskCore

/// The acting user of a command, `--as EMAIL` or else `TASKBASE_ACTOR`: read one way by taskctl
/// and taskimport, and named as such when it does not exist, so the line says what to fix.
public enum ActingUser {
    /// The user the command line names, or nil when it names none (blank counts as none).
    public static func named(in values: ParsedValues) -> UserRef? {
        guard let text = values.string("as"), !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return UserRef(text)
    }

    /// The line for an acting user who does not exist, `suffix` (the consequence) included.
    static func notFoundMessage(_ actor: UserRef, suffix: String) -> String {
        "the acting user (--as or TASKBASE_ACTOR), \(actor), does not exist\(suffix); "
            + "check the email, or have an operator add the user with taskctl user add"
    }
}
