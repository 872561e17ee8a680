/// TaskCore's verdicts on cell texts that repeat from row to row (assignee addresses, status and
/// priority spellings), so each distinct text is judged once rather than once per row.
struct CellVerdicts<Value> {
    /// How many distinct texts are remembered; beyond that they are judged every time.
    private static var capacity: Int { 4_096 }

    private var verdicts: [String: Result<Value, any Error>] = [:]

    /// The value `judge` gives `text`, or the error it throws, remembered.
    mutating func value(of text: String, judgedBy judge: (String) throws -> Value) throws -> Value {
        if let verdict = verdicts[text] { return try verdict.get() }
        let verdict = Result { try judge(text) }
        if verdicts.count < Self.capacity { verdicts[text] = verdict }
        return try verdict.get()
    }
}
