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
}
