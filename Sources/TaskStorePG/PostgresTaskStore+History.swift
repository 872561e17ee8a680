import PGStore
import TaskCore

/// How `task_history` stores a change: the SQL every history-writing statement shares (task
/// create and update, the import's merge) and the form it is read back in.
extension PostgresTaskStore {
    /// How history stores one field's change (`task_history.changes` is an array of these,
    /// written by `historyChangesSQL(old:new:)`).
    struct StoredChange: Decodable {
        var field: String
        var old: String?
        var new: String?
    }

    /// History's columns, in `TaskField` order, as text (what `TaskItem.historyValue` gives).
    static let historyFields: [(name: String, column: String)] = [
        ("title", "title"), ("notes", "notes"), ("status", "status"), ("priority", "priority"),
        ("due_date", "due_date::text"), ("assignee", "assignee_id::text"), ("category", "category"),
        ("external_id", "external_id"),
    ]

    /// A created task's values for `task_history.created_values`, from row alias `new`, in
    /// `historyFields` order, and a change's field list from row alias `old` to `new`: the SQL
    /// every statement that writes history shares (task create/update and the import's merge).
    /// A field without a value is '' in the array (PGStore's arrays hold no NULL).
    static let historyOfCreation = "ARRAY[" + historyFields.map { "coalesce(new.\($0.column), '')" }.joined(separator: ", ") + "]"
    static let historyOfChange = historyChangesSQL(old: { "old.\($0)" }, new: { "new.\($0)" })

    /// SQL for a change entry's field list, `[{"field", "old", "new"}, ...]`, the fields whose
    /// value before (`old`, given a `historyFields` column, e.g. `due_date::text`, gives its SQL)
    /// differs from the value after (`new`, likewise). Written as JSON text and cast
    /// once: a `jsonb_build_object` per field gathered into an array cost ~30% more server CPU
    /// (3.4–4.0 s vs 2.4–2.9 s for 200,000 imported tasks), and the jsonb stored is the same.
    /// A created task's entry stores a text array instead (`historyOfCreation`): its list,
    /// built and parsed this way for every task, was 9.3 µs of 0.5 µs per imported task.
    static func historyChangesSQL(old: (String) -> String, new: (String) -> String) -> String {
        let elements = historyFields.map { field in
            let new = new(field.column), before = old(field.column)
            return "CASE WHEN \(before) IS DISTINCT FROM \(new) THEN '{\"field\": \"\(field.name)\", \"old\": ' || "
                + "coalesce(to_json(\(before))::text, 'null') || ', \"new\": ' || coalesce(to_json(\(new))::text, 'null') || '}' END"
        }
        return "('[' || concat_ws(', ', \(elements.joined(separator: ", "))) || ']')::jsonb"
    }

    /// An entry's field changes from its stored columns: a created task's `created_values` (the
    /// fields that had a value, each from none to it) or else its `changes` list.
    static func storedChanges(in row: PGRow) throws -> [FieldChange] {
        if let values = try row.decode([String]?.self, "created_values") {
            return try zip(historyFields, values).compactMap { field, value in
                guard !value.isEmpty else { return nil }
                return FieldChange(field: try storedField(field.name), old: nil, new: value)
            }
        }
        return try row.decode(PGJSON.self, "changes").decode(as: [StoredChange].self).map { change in
            FieldChange(field: try storedField(change.field), old: change.old, new: change.new)
        }
    }

    private static func storedField(_ name: String) throws -> TaskField {
        guard let field = TaskField(rawValue: name) else {
            throw UnexpectedStoredValue(column: "changes", value: name, expected: "task field")
        }
        return field
    }
}
