import Foundation

extension MigrationFile {
    /// The statements of the down section that destroy data (DROP TABLE, DROP COLUMN, DROP
    /// SCHEMA, TRUNCATE, DELETE, ...), as their first words: what a careless `down` would lose.
    /// A function's definition is none: its body runs only when called (a `DO` block's runs).
    public var dataDroppingDownStatements: [String] {
        (down ?? []).compactMap { statement in
            let code = statement.codeTokens.map(\.text).joined(separator: " ").uppercased()
            if code.range(of: #"^CREATE (OR REPLACE )?(FUNCTION|PROCEDURE)\b"#, options: .regularExpression) != nil { return nil }
            guard let match = code.range(of: Self.dataDropping, options: .regularExpression) else { return nil }
            return String(code[match])
        }
    }

    private static let dataDropping =
        #"\b(DROP (TABLE|COLUMN|SCHEMA|DATABASE|MATERIALIZED VIEW|OWNED)|ALTER TABLE .* DROP( COLUMN)? [A-Z_"]|TRUNCATE|DELETE FROM)\b"#
}
