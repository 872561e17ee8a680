import Foundation
import PGStore
import TaskbaseTestSupport

/// What the migration tests read back from a database: values, the history, the catalog.
extension TestDatabase {
    /// One text value from a query.
    func scalar(_ query: PGQuery) async throws -> String? {
        try await withConnection { connection in
            try await connection.query(query).first?.decode(String?.self, at: 0)
        }
    }

    /// Versions recorded in the history, ascending.
    func appliedVersions() async throws -> [Int64] {
        try await withConnection { connection in
            let present = try await connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present").first?.decode(
                Bool.self, "present")
            guard present == true else { return [] }
            return try await connection.query("SELECT version FROM schema_migrations ORDER BY version").map { try $0.decode(Int64.self, "version") }
        }
    }

    /// A text dump of the public schema's catalog: columns, indexes, constraints, policies,
    /// row security, functions and grants, sorted, to compare schemas.
    func catalogDump() async throws -> String {
        try await scalar(
            """
            SELECT string_agg(line, E'\\n' ORDER BY line) FROM (
              SELECT format('column %s.%s %s notnull=%s default=%s identity=%s', c.relname, a.attname,
                            format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attidentity) AS line
                FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
               WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
              UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
              UNION ALL SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
                FROM pg_constraint WHERE connamespace = 'public'::regnamespace
              UNION ALL SELECT format('policy %s %s %s %s %s %s', tablename, policyname, cmd, roles, qual, with_check)
                FROM pg_policies WHERE schemaname = 'public'
              UNION ALL SELECT format('rls %s %s', relname, relrowsecurity) FROM pg_class
               WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'
              UNION ALL SELECT format('function %s', pg_get_functiondef(oid)) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
              UNION ALL SELECT format('grant %s %s %s', table_name, grantee, privilege_type)
                FROM information_schema.role_table_grants WHERE table_schema = 'public'
            ) lines
            """) ?? ""
    }
}
