import Foundation

/// The rules for a task's free-text fields, shared by drafts, edits and the importer so that
/// a value is accepted or refused the same way wherever it comes from. Lengths are
/// `TextRules.length`: Unicode scalars, as the database counts them. Every text is stored
/// composed (`TextRules.composed`), so a search or a category finds it however it was typed.
public enum TaskFields {
    /// A title's length after trimming.
    public static let titleLength = 1...500
    /// The longest notes.
    public static let notesMaxLength = 10_000
    /// The longest category.
    public static let categoryMaxLength = 100
    /// The longest external id.
    public static let externalIDMaxLength = 200

    /// A trimmed, composed title of 1-500 characters (code points, as `tasks_title_length`
    /// counts them).
    public static func title(_ text: String) throws -> String {
        let title = TextRules.composed(TextRules.trimmed(text))
        try TextRules.rejectNUL(title, field: "title")
        guard !title.isEmpty else { throw TaskError.validation(field: "title", reason: "a title cannot be empty") }
        let length = TextRules.length(title)
        guard titleLength.contains(length) else {
            throw TaskError.validation(
                field: "title",
                reason: "a title has at most \(titleLength.upperBound) characters (Unicode code points), got \(length)")
        }
        return title
    }

    /// Notes with trailing whitespace removed, composed, at most 10,000 characters.
    public static func notes(_ text: String) throws -> String {
        try TextRules.rejectNUL(text, field: "notes")
        let notes = TextRules.composed(TextRules.trailingWhitespaceRemoved(text))
        let length = TextRules.length(notes)
        guard length <= notesMaxLength else {
            throw TaskError.validation(
                field: "notes", reason: "notes have at most \(notesMaxLength) characters (Unicode code points), got \(length)")
        }
        return notes
    }

    /// A trimmed, composed single-line category; empty means none.
    public static func category(_ text: String?) throws -> String? {
        try singleLine(text, field: "category", noun: "a category", maxLength: categoryMaxLength)
    }

    /// A trimmed, composed single-line external id; empty means none.
    public static func externalID(_ text: String?) throws -> String? {
        try singleLine(text, field: "externalID", noun: "an external id", maxLength: externalIDMaxLength)
    }

    /// An assignee reference the store can look up: an email holding a NUL character could
    /// never match a stored one, and the database refuses it as a parameter, so it is refused
    /// here, naming the assignee, for every caller (the API, taskctl, the importer).
    public static func assignee(_ ref: UserRef?) throws -> UserRef? {
        if case .email(let email) = ref {
            try TextRules.rejectNUL(email, field: "assignee")
            try rejectMalformedID(email, field: "assignee")
        }
        return ref
    }

    /// Refuses text that starts like an id (`#`) but is none (`#abc`, `#0`): `UserRef` reads it
    /// as an email, which once made it "no user #abc exists".
    public static func rejectMalformedID(_ text: String, field: String) throws {
        guard text.hasPrefix("#") else { return }
        throw TaskError.validation(field: field, reason: "\(text) is no user id (# and a positive number) and no email address")
    }

    private static func singleLine(_ text: String?, field: String, noun: String, maxLength: Int) throws -> String? {
        guard let value = text.map({ TextRules.composed(TextRules.trimmed($0)) }), !value.isEmpty else { return nil }
        try TextRules.rejectNUL(value, field: field)
        guard !TextRules.hasLineBreak(value) else {
            throw TaskError.validation(field: field, reason: "\(noun) is one line")
        }
        let length = TextRules.length(value)
        guard length <= maxLength else {
            throw TaskError.validation(
                field: field, reason: "\(noun) has at most \(maxLength) characters (Unicode code points), got \(length)")
        }
        return value
    }
}
