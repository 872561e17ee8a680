import Foundation

extension MigrationFile {
    /// The statements of the down section that destroy data (DROP TABLE, DROP COLUMN, DROP
    /// SCHEMA, DROP TYPE ... CASCADE, TRUNCATE, DELETE, ...), as their first words: what a
    /// careless `down` would lose. Quoted text is not code (a COMMENT may say DELETE FROM), but a
    /// `DO` block's is. A function's definition runs nothing until called, so its body is
    /// skipped, unless the section also runs code (SELECT, CALL, DML: a call, or a trigger it
    /// fires, may run the body).
    public var dataDroppingDownStatements: [String] {
        func text(of statement: SQLStatement, quotedText: Bool) -> String {
            statement.codeTokens.filter { quotedText || $0.kind != .string }.map(\.text).joined(separator: " ").uppercased()
        }
        let statements = (down ?? []).map { text(of: $0, quotedText: false) }
        let sectionRunsCode = statements.contains { $0.range(of: Self.runsCode, options: .regularExpression) != nil }
        return zip(down ?? [], statements).compactMap { statement, unquoted in
            let code = unquoted.hasPrefix("DO ") ? text(of: statement, quotedText: true) : unquoted
            if !sectionRunsCode, code.range(of: #"^CREATE (OR REPLACE )?(FUNCTION|PROCEDURE)\b"#, options: .regularExpression) != nil {
                return nil
            }
            guard let match = code.range(of: Self.dataDropping, options: .regularExpression) else { return nil }
            return String(code[match])
        }
    }

    /// Statements that run code of their own choosing: queries and calls, and writes (which may
    /// fire a trigger the section created).
    private static let runsCode = #"^(SELECT|CALL|WITH|INSERT|UPDATE|DELETE|MERGE|COPY|EXECUTE|DO)\b"#

    private static let dataDropping =
        #"\b(DROP (TABLE|COLUMN|SCHEMA|DATABASE|MATERIALIZED VIEW|OWNED)|DROP (TYPE|DOMAIN|EXTENSION) .*\bCASCADE|ALTER TABLE .* DROP (COLUMN )?(IF EXISTS )?(?!CONSTRAINT\b|DEFAULT\b|NOT\b|IDENTITY\b|EXPRESSION\b)[A-Z_"]|TRUNCATE|DELETE FROM)"#
}
