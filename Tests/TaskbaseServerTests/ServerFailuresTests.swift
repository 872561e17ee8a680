import Foundation
import TaskStorePG
import TaskbaseTestSupport
import TaskbaseWire
import Testing

@testable import PGStore
@testable import TaskbaseServer

@Suite("What a failure that is no refusal answers")
struct ServerFailuresTests {
    /// A server error with `sqlState`.
    static func serverError(_ sqlState: String, _ message: String) -> PGError {
        var error = PGError(kind: .server, message: message)
        error.sqlState = sqlState
        return error
    }

    @Test("a schema that lacks a function, table or column this server uses is 503 saying to migrate, not a bare 500")
    func schemaBehind() throws {
        // A server newer than the database's migrations (a rolling deploy) met these as
        // "500: the server failed: PGError", and logged nothing of why.
        for sqlState in ["42883", "42P01", "42703"] {
            let response = ServerFailures.response(for: Self.serverError(sqlState, "function taskbase_user_by_email(text) does not exist"))
            #expect(response.status == 503, "\(sqlState)")
            guard case .bytes(let bytes) = response.body else {
                Issue.record("no body")
                continue
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.contains("older than this server needs") && text.contains("taskmigrate up"), "\(text)")
            #expect(text.contains("taskbase_user_by_email"), "\(text)")
        }
        // Any other statement error is still the server's fault: 500.
        #expect(ServerFailures.response(for: Self.serverError("42601", "syntax error")).status == 500)
    }

    /// Busy is not broken: a lock held by another session past the server's lock_timeout was a
    /// 500 ("the server failed: PGError"), as was a serialization failure or deadlock that
    /// outlasted the store's retries.
    @Test(
        "a write held up past lock_timeout, or past statement_timeout, is 503 with Retry-After, and nothing of it is written; so are 40001 and 40P01",
        arguments: [
            PGSessionLimits(lockTimeout: .milliseconds(500), statementTimeout: .seconds(30)),
            PGSessionLimits(lockTimeout: .seconds(30), statementTimeout: .milliseconds(500)),
        ])
    func lockTimeoutIsBusy(limits: PGSessionLimits) async throws {
        try await TestDatabase.with(migrated: true, purpose: "lock timeout") { database in
            let store = try await PostgresTaskStore.open(config: database.config, maxConnections: 2, limits: limits)
            let f = try await ServerFixture.start(store: store)
            let blocker = try await database.holding("LOCK TABLE task_counters IN EXCLUSIVE MODE")
            let answer = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Behind a lock"}"#)
            try await blocker.execute("ROLLBACK")
            #expect(answer.status == 503, "\(answer.status): \(answer.text)")
            #expect(answer.header("Retry-After") == "1")
            #expect(answer.problem?.code == "unavailable" && answer.problem?.detail.contains("nothing was changed") == true, "\(answer.text)")
            let made = try await blocker.query("SELECT count(*)::int AS n FROM tasks WHERE title = 'Behind a lock'")[0].decode(Int.self, "n")
            #expect(made == 0)
            // Free again: the same request is served.
            #expect(try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Behind a lock"}"#).status == 201)
            await blocker.close()
            await f.stop()
        }
        for sqlState in ["40001", "40P01", "57014"] {
            let response = ServerFailures.response(for: Self.serverError(sqlState, "could not serialize access"))
            #expect(response.status == 503 && response.header("Retry-After") == "1", "\(sqlState)")
            #expect(response.failure?.hasPrefix(sqlState) == true, "the access log names the cause: \(String(describing: response.failure))")
        }
    }

    @Test("the database refusing the caller (SQLSTATE 42501, row security) is 403 permission_denied, as taskctl says it, not 500")
    func databaseRefusalIsPermissionDenied() throws {
        // Two owners demoting each other at once: the loser's write met row security and was
        // answered "500 internal".
        let error = Self.serverError("42501", "new row violates row-level security policy for table \"memberships\"")
        let response = ServerFailures.response(for: error)
        #expect(response.status == 403 && response.failure == nil)
        guard case .bytes(let bytes) = response.body else {
            Issue.record("no body")
            return
        }
        let problem = try JSONDecoder().decode(ProblemDocument.self, from: Data(bytes))
        #expect(problem.code == "permission_denied" && problem.status == 403, "\(problem)")
        #expect(problem.taskError != nil, "a client reads it as the refusal it is: \(problem)")
        // In any language: the server's messages follow its lc_messages (a German server's
        // refusal once read as a 500, its text matched against the English one).
        let german = Self.serverError("42501", "neue Zeile verletzt Policy für Sicherheit auf Zeilenebene für Tabelle »idempotency_keys«")
        #expect(ServerFailures.response(for: german).status == 403)
        // An integrity trigger's 42501 is the server's own fault: a 500 whose cause is logged.
        var trigger = Self.serverError("42501", "task number 7 of team 3 was not taken from the team's counter in this transaction")
        trigger.context = "PL/pgSQL function taskbase_tasks_numbered_by_counter() line 27 at RAISE"
        let failed = ServerFailures.response(for: trigger)
        #expect(failed.status == 500 && failed.failure != nil)
    }

    @Test("the integrity triggers the server answers 500 for are exactly the schema's trigger functions that refuse with 42501")
    func integrityChecksMatchTheSchema() async throws {
        // A trigger added by a later migration that refuses with 42501 would otherwise read as
        // the caller's refusal (403), its cause never logged: list it in `integrityChecks` when
        // no program of ours sends what it refuses, or give it another SQLSTATE.
        let raising = try await PGConnection.with(try await TestDatabases.shared.value) { connection in
            try await connection.query(
                """
                SELECT p.proname::text AS name
                  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                 WHERE n.nspname = 'public' AND p.prorettype = 'trigger'::regtype
                   AND (p.prosrc ILIKE '%insufficient_privilege%' OR p.prosrc LIKE '%42501%')
                """
            ).map { try $0.decode(String.self, "name") }
        }
        #expect(Set(raising) == Set(ServerFailures.integrityChecks), "\(raising.sorted())")
    }

    @Test("a failure that is no refusal names its cause in the access log, never a row's values; a refusal logs none")
    func failureInTheAccessLog() throws {
        // Once the log said only "500" and the client "the server failed: PGError".
        var error = Self.serverError("23514", "new row violates check constraint")
        error.constraint = "tasks_title_check"
        error.detail = "Failing row contains (1, secret title)"
        let response = ServerFailures.response(for: error)
        #expect(response.status == 500 && response.failure == "23514: new row violates check constraint: constraint tasks_title_check")
        let request = HTTPRequest(method: "GET", path: "/v1/me")
        let line = AccessLog.line(
            request: request, response: response, route: "GET /v1/me", tokenPrefix: nil, client: nil, requestID: nil, duration: .zero)
        let logged = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(logged?["error"] as? String == response.failure && !line.contains("secret title"), "\(line)")
        let refused = AccessLog.line(
            request: request, response: HTTPResponse(status: 404), route: "GET /v1/me", tokenPrefix: nil, client: nil, requestID: nil,
            duration: .zero)
        #expect(!refused.contains("\"error\""))
    }
}
