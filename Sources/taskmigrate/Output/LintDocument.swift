import Migrations

/// `lint --json`: one document with every finding of every file, and the files that could not
/// be read, so CI systems can annotate them the way they annotate squawk's.
struct LintDocument: Codable {
    struct Finding: Codable {
        var file: String
        /// Null only for a file error that is not on one line.
        var line: Int?
        var column: Int?
        var rule: String
        var message: String
        /// True when the file allows the rule with `-- lint:allow`; such findings do not fail the run.
        var allowed: Bool

        /// Every key is present; what does not apply is `null`.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(file, forKey: .file)
            try container.encode(line, forKey: .line)
            try container.encode(column, forKey: .column)
            try container.encode(rule, forKey: .rule)
            try container.encode(message, forKey: .message)
            try container.encode(allowed, forKey: .allowed)
        }

        private enum CodingKeys: String, CodingKey { case file, line, column, rule, message, allowed }
    }

    /// The rule name a file that cannot be parsed is reported under; no `-- lint:allow` covers it.
    static let invalidFileRule = "invalid-file"

    var files: Int
    var refused: Int
    var findings: [Finding]

    init(files: Int, findings: [LintFinding], errors: [MigrationFileError]) {
        self.files = files + errors.count
        self.findings =
            errors.map {
                Finding(file: $0.path, line: $0.line, column: $0.line.map { _ in 1 }, rule: Self.invalidFileRule, message: $0.message, allowed: false)
            }
            + findings.map {
                Finding(file: $0.path, line: $0.line, column: $0.column, rule: $0.rule.rawValue, message: $0.reason, allowed: $0.isAllowed)
            }
        refused = self.findings.filter { !$0.allowed }.count
    }
}
