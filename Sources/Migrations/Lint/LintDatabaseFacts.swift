import PGStore

/// What lint learns from a live database before linting the files not yet applied to it:
/// the columns already proven NOT NULL (declared so, or by a validated `CHECK (col IS NOT
/// NULL)`), so that `SET NOT NULL` on them is known to skip its scan.
public struct LintDatabaseFacts: Sendable, Equatable {
    /// `table.column` pairs (unqualified, as lint keys tables) known never to hold NULL.
    public var notNullColumns: Set<TableColumn>

    /// A column of a table, folded as PostgreSQL folds identifiers.
    public struct TableColumn: Sendable, Hashable {
        /// The table's unqualified name.
        public var table: String
        /// The column's name.
        public var column: String

        /// A table's column.
        public init(table: String, column: String) {
            self.table = table
            self.column = column
        }
    }

    /// Facts from nowhere: lint knows only what the files say.
    public init(notNullColumns: Set<TableColumn> = []) {
        self.notNullColumns = notNullColumns
    }

    /// Reads the facts from the schemas on `connection`'s search_path. Reads catalogs only.
    public static func read(on connection: PGConnection) async throws -> LintDatabaseFacts {
        var columns: Set<TableColumn> = []
        let checks = try await connection.query(
            """
            SELECT c.relname, pg_catalog.pg_get_constraintdef(k.oid) AS definition
              FROM pg_catalog.pg_constraint k
              JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
             WHERE k.contype = 'c' AND k.convalidated
               AND c.relnamespace = ANY (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ANY (pg_catalog.current_schemas(false)))
            """)
        for row in checks {
            let table = try row.decode(String.self, "relname")
            let definition = try row.decode(String.self, "definition")
            let tokens = SQLLexer(SourceText(definition)).tokens()
            for column in StatementShape(tokens).notNullCheckColumns() {
                columns.insert(TableColumn(table: table, column: column))
            }
        }
        let declared = try await connection.query(
            """
            SELECT c.relname, a.attname
              FROM pg_catalog.pg_attribute a
              JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
             WHERE a.attnotnull AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p')
               AND c.relnamespace = ANY (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ANY (pg_catalog.current_schemas(false)))
            """)
        for row in declared {
            columns.insert(TableColumn(table: try row.decode(String.self, "relname"), column: try row.decode(String.self, "attname")))
        }
        return LintDatabaseFacts(notNullColumns: columns)
    }
}
