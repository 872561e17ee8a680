/// How a command prints its data: a table for people, one JSON document, or CSV for lists.
enum OutputFormat: Sendable, Equatable {
    /// Aligned columns or labelled lines.
    case table
    /// One JSON document with the field names docs/taskctl.md documents.
    case json
    /// RFC 4180 CSV with a header row whose names are the JSON field names.
    case csv
}
