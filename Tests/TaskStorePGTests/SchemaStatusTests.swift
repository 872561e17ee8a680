import Foundation
import PGStore
import TaskCore
import TaskbaseTestSupport
import Testing
@testable import TaskStorePG

@Suite("How Postgres reports its schema")
struct SchemaStatusTests {
    @Test("the version the store needs is the newest migration file's")
    func neededIsNewest() throws {
        let versions = try FileManager.default.contentsOfDirectory(atPath: TestDatabases.migrationsDirectory)
            .filter { $0.hasSuffix(".sql") }.compactMap { Int64($0.prefix { $0.isNumber }) }
        #expect(versions.max() == PostgresTaskStore.neededSchemaVersion)
    }

    @Test("never migrated, current, missing its newest migration, and older than the runtime role's read of the version")
    func eachState() async throws {
        try await TestDatabase.with(migrated: false, purpose: "schema status") { database in
            let store = try await PostgresTaskStore.open(config: database.config, maxConnections: 1)
            #expect(try await store.schemaStatus() == .neverMigrated)
            // What a first `taskmigrate up` that failed leaves: an empty history the runtime
            // role may not read (0018 grants that). Still never migrated, not "older".
            try await database.withConnection {
                try await $0.execute(PGQuery(unsafeSQL: "CREATE TABLE schema_migrations (version bigint PRIMARY KEY)"))
            }
            #expect(try await store.schemaStatus() == .neverMigrated)
        }
        try await TestDatabase.with(migrated: true, purpose: "schema status") { database in
            let store = try await PostgresTaskStore.open(config: database.config, maxConnections: 1)
            #expect(try await store.schemaStatus() == .current)
            let needed = PostgresTaskStore.neededSchemaVersion
            // The newest version left: the one before, or less while a branch's numbers have gaps.
            let previous = try await database.withConnection {
                try await $0.execute("DELETE FROM schema_migrations WHERE version = \(needed)")
                return try await $0.query("SELECT max(version) AS v FROM schema_migrations")[0].decode(Int64.self, "v")
            }
            #expect(previous < needed)
            #expect(try await store.schemaStatus() == .behind(applied: previous, needed: needed))
            try await database.withConnection {
                try await $0.execute(PGQuery(unsafeSQL: "REVOKE SELECT (version) ON TABLE schema_migrations FROM taskbase_app"))
            }
            #expect(try await store.schemaStatus() == .behind(applied: nil, needed: needed))
            #expect(
                SchemaStatus.behind(applied: 16, needed: 18).description
                    == "the database schema is at version 16, older than the version 18 this program needs")
        }
    }
}
