/// The task fields a CSV column can fill.
///
/// Header names match a field ignoring case, spaces, hyphens and underscores (`Due Date`,
/// `due_date` and `DUE-DATE` are the same), by the field's own name or one of its `synonyms`:
///
/// | field        | headers that map to it                                        |
/// |--------------|---------------------------------------------------------------|
/// | `title`      | Title, Name, Summary, Task, Task Name, Subject                |
/// | `notes`      | Notes, Note, Description, Details, Body                       |
/// | `status`     | Status, State                                                 |
/// | `priority`   | Priority                                                      |
/// | `dueDate`    | Due Date, Due, Due On, Deadline                               |
/// | `assignee`   | Assignee, Assignee Email, Assigned To, Owner                  |
/// | `category`   | Category, Section                                             |
/// | `externalId` | External ID, ID, Task ID                                      |
///
/// `Key` is deliberately not a synonym of `externalId`: a Taskbase export names the human task
/// key (`CORE-42`) `Key`, which belongs to the exporting team and must not become the
/// external id when the file is imported into another team.
public enum ImportField: String, CaseIterable, Sendable, Hashable {
    /// The task's title; the one column an import cannot do without.
    case title
    /// Free-text notes.
    case notes
    /// Workflow status (open, in progress, done).
    case status
    /// Priority (none to urgent).
    case priority
    /// The due date.
    case dueDate
    /// The assignee's email address.
    case assignee
    /// The optional category.
    case category
    /// The id the task has in the system it comes from; re-imports match on it.
    case externalId

    /// The header names this field is recognised by, as people write them; the first is the
    /// canonical one.
    public var synonyms: [String] {
        switch self {
        case .title: ["Title", "Name", "Summary", "Task", "Task Name", "Subject"]
        case .notes: ["Notes", "Note", "Description", "Details", "Body"]
        case .status: ["Status", "State"]
        case .priority: ["Priority"]
        case .dueDate: ["Due Date", "Due", "Due On", "Deadline"]
        case .assignee: ["Assignee", "Assignee Email", "Assigned To", "Owner"]
        case .category: ["Category", "Section"]
        case .externalId: ["External ID", "ID", "Task ID"]
        }
    }

    /// The field's name for messages: `title`, `due date`, `external id`.
    public var displayName: String {
        synonyms[0].lowercased()
    }

    /// Parses the FIELD of a `--map FIELD=HEADER` option: the field's name in any spelling
    /// (`dueDate`, `due_date`, `Due Date`) or one of its synonyms.
    public init?(argument: String) {
        guard let field = Self.byMatchKey[Self.matchKey(argument)] else { return nil }
        self = field
    }

    /// Every name this field is known by, reduced as `init(argument:)` compares them (lowercased,
    /// without white space, `-` or `_`): what the API's document spells a `map` option from.
    public var argumentKeys: [String] {
        ([rawValue] + synonyms).map(Self.matchKey)
    }

    /// The field a CSV header names, if any.
    static func matching(header: String) -> ImportField? {
        byMatchKey[matchKey(header)]
    }

    /// `name` reduced for comparison: lowercased, without whitespace, `-` or `_`.
    static func matchKey(_ name: String) -> String {
        String(
            name.lowercased().unicodeScalars.filter {
                !$0.properties.isWhitespace && $0 != "-" && $0 != "_"
            })
    }

    /// Every spelling of every field, reduced by `matchKey`.
    private static let byMatchKey: [String: ImportField] = {
        var keys: [String: ImportField] = [:]
        for field in allCases {
            keys[matchKey(field.rawValue)] = field
            for synonym in field.synonyms {
                keys[matchKey(synonym)] = field
            }
        }
        return keys
    }()
}
