/// Every refusal of the service layer, as a value: what was refused and why. The command
/// line turns it into one line and an exit code; nothing else should parse its text.
public enum TaskError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `what` does not exist, or the actor may not know that it exists (outsiders).
    case notFound(what: String)
    /// The actor may not do `what`; `why` names the missing role or the disabled account.
    case permissionDenied(what: String, why: String)
    /// An update stated a version that is no longer current; nothing was written.
    case conflict(what: String, currentVersion: Int64)
    /// A unique name (email, team key, external id) is taken.
    case alreadyExists(what: String)
    /// An input value is not acceptable; `field` names it as the caller spelled it, and
    /// `reason` says what is wrong in a clause that reads alone ("the title is required").
    case validation(field: String, reason: String)

    /// How a change feed of `team` ends once its watcher may no longer read the team (removed
    /// from it, or the team deleted): in process, and rebuilt by the HTTP client on reconnecting.
    public static func watcherRemoved(from team: TeamKey) -> TaskError {
        .permissionDenied(what: "watch team \(team)", why: "the watcher is no longer a member of it")
    }

    /// One line for people: what was refused and why.
    public var description: String {
        switch self {
        case .notFound(let what): "\(what) not found"
        case .permissionDenied(let what, let why): "not allowed to \(what): \(why)"
        case .conflict(let what, let version):
            "\(what) is now at version \(version), not the version the change was based on; nothing was changed: read it again and retry"
        case .alreadyExists(let what): "\(what) already exists"
        case .validation(let field, let reason): "invalid \(Self.spoken(field)): \(reason)"
        }
    }

    /// The refusal of a user reference that names nobody (the caller may see): "user ann@example.com
    /// not found". Made here only, so a program can tell its own acting user's case apart.
    public static func unknownUser(_ ref: UserRef) -> TaskError {
        .notFound(what: ref.description)
    }

    /// The refusal of an external id another task of the team holds, worded once for every store.
    public static func externalIDTaken(_ externalID: String, in team: TeamKey, by holder: TaskKey?) -> TaskError {
        .alreadyExists(what: "external id \"\(externalID)\" in team \(team)" + (holder.map { " (task \($0))" } ?? ""))
    }

    /// The refusal of an import whose rows `first` and `last` (1-based) carry the same external
    /// id, worded once for every store.
    public static func externalIDRepeated(_ externalID: String, rows first: Int, and last: Int) -> TaskError {
        .validation(field: "externalID", reason: "\"\(externalID)\" appears more than once in the import (rows \(first) and \(last))")
    }

    /// `text` in quotes as a reason shows a value it refuses: whole up to 80 characters, else
    /// its first 80 and an ellipsis. A refusal repeats what it was sent, and a megabyte cell once
    /// came back whole in each row's reason, making a 16 KB gzipped import a 16 MB answer.
    public static func quoting(_ text: String) -> String {
        text.count <= 80 ? "\"\(text)\"" : "\"\(text.prefix(80))\"… (\(text.utf8.count) bytes)"
    }

    /// A field's code name as people say it: `externalID` → "external id", `dueDate` → "due date".
    /// A reason names its field with it, so that it reads alone (an import's reject report). A
    /// header's name (`If-Match`, `Idempotency-Key`) is said as it is written.
    public static func spoken(_ field: String) -> String {
        if field.contains("-") { return field }
        var words = ""
        var previous: Character?
        for character in field {
            if character.isUppercase, let previous, previous.isLowercase { words.append(" ") }
            words.append(character)
            previous = character
        }
        return words.lowercased()
    }
}
