import Foundation
import PGStore
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseTestSupport
import Testing

@Suite("the deployment's runtime login role", .timeLimit(.minutes(3)))
struct RuntimeRoleTests {
    @Test("a login role granted taskbase_app (as docker-compose.yml and docs/operations.md set it up) runs the store and cannot change the schema")
    func loginRoleRunsTheStore() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let role = "reliability_web_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
            let password = "p'w \(UUID().uuidString)"
            let admin = try TestDatabases.admin()
            try await PGConnection.with(admin) { connection in
                _ = try await connection.query("SELECT set_config('reliability.password', \(password), false)")
                _ = try await connection.simpleQuery(
                    unsafeSQL: """
                        DO $$ BEGIN
                            EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', '\(role)', current_setting('reliability.password'));
                        END $$;
                        GRANT taskbase_app TO \(PGQuery.quoteIdentifier(role));
                        """)
            }
            do {
                var config = database.config
                config["user"] = role
                config["password"] = password
                // The database's administrator makes the first operator; the runtime login provisions as them.
                let administrator = TaskService(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 1))
                let operatorEmail = "ops.\(UInt32.random(in: 0...UInt32.max))@example.com"
                _ = try await administrator.createUser(email: operatorEmail, displayName: "Ops", isOperator: true)
                let store = try await PostgresTaskStore.open(config: config, maxConnections: 2)
                let fixture = try await ContractFixture.make(store: store, provisioner: .email(operatorEmail))
                // A taken address is named, though row security keeps it out of the server's
                // detail (it once said "user with that email already exists").
                let taken = await #expect(throws: TaskError.self) {
                    _ = try await fixture.service.createUser(email: operatorEmail, displayName: "Twin", as: .email(operatorEmail))
                }
                #expect(taken == TaskError.alreadyExists(what: "user \(operatorEmail)"))
                let task = try await fixture.makeTask("Written by the runtime role")
                #expect(try await fixture.service.task(task.key, as: fixture.viewer).title == task.title)
                let refused = await #expect(throws: PGError.self) {
                    try await PGConnection.with(config) { try await $0.execute("DROP TABLE tasks") }
                }
                #expect(refused?.code == .insufficientPrivilege)
            } catch {
                try? await TestDatabases.execute(PGQuery(unsafeSQL: "DROP ROLE IF EXISTS \(PGQuery.quoteIdentifier(role))"), on: admin)
                throw error
            }
            try await TestDatabases.execute(PGQuery(unsafeSQL: "DROP ROLE IF EXISTS \(PGQuery.quoteIdentifier(role))"), on: admin)
        }
    }

    @Test("session defaults the runtime login gave itself (a search_path without the schema, row_security off) change nothing the store does")
    func plantedDefaultsChangeNothing() async throws {
        try await TestDatabase.with(migrated: true, purpose: "planted_defaults") { database in
            let operatorEmail = "ops.\(UInt32.random(in: 0...UInt32.max))@example.com"
            let administrator = TaskService(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 1))
            _ = try await administrator.createUser(email: operatorEmail, displayName: "Ops", isOperator: true)
            try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
                let config = login.config(for: database.config)
                // The attack, with nothing but the login: defaults every later session of it
                // starts with, whatever its password. Before the store set both itself, every
                // program stopped (42P01 "relation users does not exist"; 42501 "query would be
                // affected by row-level security policy").
                try await PGConnection.with(config) { connection in
                    _ = try await connection.simpleQuery(
                        unsafeSQL: """
                            ALTER ROLE \(login.name) SET search_path = pg_catalog;
                            ALTER ROLE \(login.name) IN DATABASE \(PGQuery.quoteIdentifier(database.config["dbname"] ?? "")) SET row_security = off
                            """)
                }
                let session = try await PGConnection.with(config) { connection in
                    try await connection.query("SELECT current_setting('search_path') AS path, current_setting('row_security') AS rls")[0]
                }
                #expect(try session.decode(String.self, "path") == "pg_catalog" && session.decode(String.self, "rls") == "off")
                let store = try await PostgresTaskStore.open(config: config, maxConnections: 2)
                #expect(try await store.schemaStatus() == .current)
                let fixture = try await ContractFixture.make(store: store, provisioner: .email(operatorEmail))
                let task = try await fixture.makeTask("Written under planted defaults")
                #expect(try await fixture.service.task(task.key, as: fixture.viewer).title == task.title)
                #expect(try await fixture.service.listTasks(in: fixture.team, as: fixture.member).tasks.contains { $0.key == task.key })
                // Row security still holds: the outsider sees nothing of the team.
                await #expect(throws: TaskError.self) { _ = try await fixture.service.task(task.key, as: fixture.outsider) }
            }
        }
    }
}
