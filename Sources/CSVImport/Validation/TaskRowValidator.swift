import TaskCore

/// Turns CSV records into drafts for the import port with TaskCore's own rules (`TaskDraft`,
/// `UserFields`, `CalendarDate`, the `NamedValue` parsers): this type only finds the cells,
/// translates other tools' spellings, and says which line and column a refusal belongs to.
///
/// It also owns the file-level rules: a repeated external id is refused with both lines, and a
/// row without one gets one derived from its content (`auto-` and 32 hex digits of a frozen hash
/// of the normalised title, notes, due date and category), so re-running a file creates
/// nothing new and editing a row's status, priority or assignee updates the task it made.
struct TaskRowValidator {
    /// A row's cells parsed by TaskCore's rules, before the assignee is looked up.
    struct ParsedRow {
        var record: CSVRecord
        var status: TaskStatus
        var priority: TaskPriority
        var dueDate: CalendarDate?
        /// The assignee's address, validated and lowercased.
        var assigneeEmail: String?
    }

    /// The prefix of derived external ids.
    static let derivedIDPrefix = "auto-"

    let mapping: HeaderMapping
    private let titleColumn: Int
    private let notesColumn: Int?
    private let statusColumn: Int?
    private let priorityColumn: Int?
    private let dueDateColumn: Int?
    private let assigneeColumn: Int?
    private let categoryColumn: Int?
    private let externalIDColumn: Int?
    /// The fields the file has no column for: a re-import leaves them as they are on the tasks
    /// it updates (`TaskImportDraft.keeps`).
    let keeps: TaskImportDraft.Fields
    private var externalIDs = ExternalIDRegistry()
    private var statuses = CellVerdicts<TaskStatus>()
    private var priorities = CellVerdicts<TaskPriority>()
    private var assignees = CellVerdicts<String?>()
    /// What the normalisation rules changed in the accepted rows so far.
    private(set) var normalisations = ImportNormalisations()

    init(mapping: HeaderMapping) {
        self.mapping = mapping
        titleColumn = mapping.column(for: .title) ?? 0
        notesColumn = mapping.column(for: .notes)
        statusColumn = mapping.column(for: .status)
        priorityColumn = mapping.column(for: .priority)
        dueDateColumn = mapping.column(for: .dueDate)
        assigneeColumn = mapping.column(for: .assignee)
        categoryColumn = mapping.column(for: .category)
        externalIDColumn = mapping.column(for: .externalId)
        let columnless: [(ImportField, TaskImportDraft.Fields)] = [
            (.notes, .notes), (.status, .status), (.priority, .priority), (.dueDate, .dueDate), (.assignee, .assignee), (.category, .category),
        ]
        keeps = TaskImportDraft.Fields(columnless.filter { mapping.column(for: $0.0) == nil }.map(\.1))
    }

    /// Sizes the duplicate check for `count` rows in all, so it need not grow while reading.
    mutating func expectRows(_ count: Int) {
        externalIDs.reserve(expectedCount: count)
    }

    /// Status, priority, due date and the assignee's address, each refused with its column.
    /// The common spellings are read from bytes; other texts are judged once each.
    mutating func parse(_ record: CSVRecord) throws(RowRejection) -> ParsedRow {
        var row = ParsedRow(record: record, status: .open, priority: .none)
        var field = ImportField.status
        do {
            if let column = statusColumn {
                row.status =
                    try record.withFieldBytes(column) { ImportSpellings.exactValue($0, as: TaskStatus.self) }
                    ?? statuses.value(of: record[column], judgedBy: ImportSpellings.status)
            }
            field = .priority
            if let column = priorityColumn {
                row.priority =
                    try record.withFieldBytes(column) { ImportSpellings.exactValue($0, as: TaskPriority.self) }
                    ?? priorities.value(of: record[column], judgedBy: ImportSpellings.priority)
            }
            field = .dueDate
            if let column = dueDateColumn {
                row.dueDate = try record.withFieldBytes(column) { try DueDateText.parse($0) }
            }
            field = .assignee
            if let column = assigneeColumn {
                row.assigneeEmail = try assignees.value(of: record[column]) { text in
                    text.allSatisfy { $0 == " " } ? nil : try UserFields.email(text)
                }
            }
        } catch {
            throw rejection(record, field: field, error)
        }
        return row
    }

    /// The draft for a parsed row with its assignee resolved; title, notes, category and
    /// external id are judged by `TaskDraft`, and the external id must be new in the file.
    mutating func draft(_ row: ParsedRow, assignee: UserRef?) throws(RowRejection) -> TaskImportDraft {
        let record = row.record
        var lineBreaksMadeLF = 0
        let title = text(at: titleColumn, of: record, counting: &lineBreaksMadeLF)
        let notes = notesColumn.map { text(at: $0, of: record, counting: &lineBreaksMadeLF) } ?? ""
        let category = categoryColumn.map { text(at: $0, of: record, counting: &lineBreaksMadeLF) }
        let externalID = externalIDColumn.map { text(at: $0, of: record, counting: &lineBreaksMadeLF) }
        var draft: TaskDraft
        var isDerived = false
        do {
            draft = try TaskDraft(
                title: title, notes: notes, status: row.status, priority: row.priority, dueDate: row.dueDate,
                assignee: assignee, category: category, externalID: externalID)
            if draft.externalID == nil {
                isDerived = true
                draft = try TaskDraft(
                    title: draft.title, notes: draft.notes, status: draft.status, priority: draft.priority, dueDate: draft.dueDate,
                    assignee: draft.assignee, category: draft.category, externalID: Self.derivedExternalID(of: draft))
            }
        } catch {
            throw rejection(record, field: Self.importField(named: error), error)
        }
        let item: TaskImportDraft
        do {
            item = try TaskImportDraft(draft, keeping: keeps)
        } catch {
            throw rejection(record, field: .externalId, error)
        }
        if let firstLine = externalIDs.register(item.externalID, line: record.line) {
            let reason =
                isDerived
                ? "the same title, notes, due date and category as line \(firstLine), and no external id to tell them apart"
                : "external id \"\(item.externalID)\" is also on line \(firstLine); an external id names one task"
            throw RowRejection(
                line: record.line, column: externalIDColumn.map { $0 + 1 }, header: externalIDColumn.map { mapping.header[$0] },
                reason: reason, fields: record.fields)
        }
        // The rules only ever remove, so a value they changed is shorter: trimmed, or composed
        // (NFC, which is no trimming and not counted), told apart only when the length differs.
        normalisations.lineBreaksMadeLF += lineBreaksMadeLF
        if Self.trimmed(title, to: draft.title) { normalisations.titlesTrimmed += 1 }
        if Self.trimmed(notes, to: draft.notes) { normalisations.notesTrimmedAtEnd += 1 }
        if let category, Self.trimmed(category, to: draft.category ?? "") { normalisations.valuesTrimmed += 1 }
        if let externalID, Self.trimmed(externalID, to: isDerived ? "" : item.externalID) { normalisations.valuesTrimmed += 1 }
        return item
    }

    /// Whether the field rules trimmed `read` to `stored`, rather than only composing it.
    static func trimmed(_ read: String, to stored: String) -> Bool {
        stored.utf8.count != read.utf8.count && stored.utf8.count != TextRules.composed(read).utf8.count
    }

    /// The external id of a row that has none: a hash of the fields that say what the task is.
    static func derivedExternalID(of draft: TaskDraft) -> String {
        var hash = ContentHash()
        hash.combineField("taskbase-import-v1")
        hash.combineField(draft.title)
        hash.combineField(draft.notes)
        hash.combineField(draft.dueDate?.description ?? "")
        hash.combineField(draft.category ?? "")
        return derivedIDPrefix + hash.hexDigits
    }

    /// The refusal of `record` for a TaskCore error about `field`.
    func rejection(_ record: CSVRecord, field: ImportField?, _ error: any Error) -> RowRejection {
        let column = field.flatMap { mapping.column(for: $0) }
        let reason: String
        if case .validation(_, let why) = error as? TaskError {
            reason = why
        } else {
            reason = String(describing: error)
        }
        return RowRejection(
            line: record.line, column: column.map { $0 + 1 }, header: column.map { mapping.header[$0] },
            reason: reason, fields: record.fields)
    }

    /// The text of a cell with its line breaks made `\n`, so a file saved with CRLF (or CR)
    /// line breaks makes the same tasks, and derives the same ids, as its LF twin; `changed`
    /// counts the cells that had one.
    private func text(at column: Int, of record: CSVRecord, counting changed: inout Int) -> String {
        guard column < record.count else { return "" }
        let (text, unified) = record.withFieldBytes(column) { bytes -> (String, Bool) in
            guard bytes.contains(ASCII.carriageReturn) else { return (String(decoding: bytes, as: UTF8.self), false) }
            var unified: [UInt8] = []
            unified.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                guard byte == ASCII.carriageReturn else {
                    unified.append(byte)
                    continue
                }
                unified.append(ASCII.lineFeed)
                if index < bytes.count, bytes[index] == ASCII.lineFeed { index += 1 }
            }
            return (String(decoding: unified, as: UTF8.self), true)
        }
        if unified { changed += 1 }
        return text
    }

    /// The column a `TaskDraft` validation error is about.
    private static func importField(named error: any Error) -> ImportField? {
        guard case .validation(let field, _) = error as? TaskError else { return nil }
        switch field {
        case "title": return .title
        case "notes": return .notes
        case "category": return .category
        case "externalID": return .externalId
        default: return nil
        }
    }
}
