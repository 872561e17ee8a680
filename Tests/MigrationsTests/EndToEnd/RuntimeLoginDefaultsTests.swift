import Foundation
import PGStore
import TaskbaseTestSupport
import Testing

extension EndToEnd {
    @Suite("taskmigrate names what a stolen runtime login left behind")
    struct RuntimeLoginDefaultsTests {
        @Test("status and up warn of the session defaults a runtime login gave itself, with the reset, never the values; not once reset")
        func runtimeLoginDefaults() async throws {
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            try await TestDatabase.with(migrated: true, purpose: "login_defaults") { database in
                try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
                    // Roles are the cluster's: other tests' logins may carry defaults meanwhile.
                    let named = "the database login \(login.name) has session defaults"
                    let clean = try await TaskMigrateProcess.run(["status"], databaseURL: database.url, folder: folder)
                    #expect(clean.status == 0 && !clean.stderr.contains(named), "\(clean.stderr)")
                    // The attack, with nothing but the runtime login: defaults that stop the
                    // servers' writes and disguise their sessions, one in this database only. A
                    // value could be a secret an operator set: it must not be printed.
                    let marker = "marker-\(UInt32.random(in: 0..<UInt32.max))"
                    let dbname = PGQuery.quoteIdentifier(database.config["dbname"] ?? "")
                    try await PGConnection.with(login.config(for: database.config)) { connection in
                        _ = try await connection.simpleQuery(
                            unsafeSQL: """
                                ALTER ROLE \(login.name) SET default_transaction_read_only = on;
                                ALTER ROLE \(login.name) IN DATABASE \(dbname) SET application_name = '\(marker)'
                                """)
                    }
                    for command in ["status", "up"] {
                        let warned = try await TaskMigrateProcess.run([command], databaseURL: database.url, folder: folder)
                        #expect(warned.status == 0, "\(warned.stderr)")
                        #expect(
                            warned.stderr.contains(
                                "the database login \(login.name) has session defaults of its own (ALTER ROLE ... SET): "
                                    + "application_name, default_transaction_read_only;"),
                            "\(command): \(warned.stderr)")
                        #expect(warned.stderr.contains("ALTER ROLE \(PGQuery.quoteIdentifier(login.name)) RESET ALL"), "\(warned.stderr)")
                        #expect(!warned.stderr.contains(marker), "\(warned.stderr)")
                    }
                    // What the warning says to do clears it.
                    try await PGConnection.with(try TestDatabases.admin()) { connection in
                        _ = try await connection.simpleQuery(
                            unsafeSQL: "ALTER ROLE \(login.name) RESET ALL; ALTER ROLE \(login.name) IN DATABASE \(dbname) RESET ALL")
                    }
                    let cleared = try await TaskMigrateProcess.run(["status"], databaseURL: database.url, folder: folder)
                    #expect(cleared.status == 0 && !cleared.stderr.contains(named), "\(cleared.stderr)")
                }
            }
        }
    }
}
