import CSVImport
import Foundation
import PGStore
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseTestSupport
import Testing

@Suite("hostile input through TaskService on the Postgres store", .timeLimit(.minutes(3)))
struct HostileInputTests {
    /// One way a text reaches the database, and how its rule normalises an accepted value.
    struct Field: Sendable {
        var name: String
        /// The value the store should hold for `text` if it is accepted.
        var normalized: @Sendable (String) -> String
        /// Writes `text` through the service and reads back what is stored.
        var write: @Sendable (ContractFixture, String) async throws -> String?
    }

    static let trimmed: @Sendable (String) -> String = { $0.trimmingCharacters(in: .whitespacesAndNewlines) }

    static let fields: [Field] = [
        Field(name: "task title", normalized: trimmed) { f, text in
            let task = try await f.service.createTask(in: f.team, try TaskDraft(title: text), as: f.member)
            return try await f.service.task(task.key, as: f.viewer).title
        },
        Field(name: "task title (update)", normalized: trimmed) { f, text in
            let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Plain"), as: f.member)
            _ = try await f.service.updateTask(task.key, try TaskChanges(title: text), expectedVersion: 1, as: f.member)
            return try await f.service.task(task.key, as: f.viewer).title
        },
        Field(
            name: "notes",
            normalized: { text in
                var notes = text
                while let last = notes.last, last.isWhitespace { notes.removeLast() }
                return notes
            }
        ) { f, text in
            let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Noted", notes: text), as: f.member)
            return try await f.service.task(task.key, as: f.viewer).notes
        },
        Field(name: "category", normalized: trimmed) { f, text in
            let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Filed", category: text), as: f.member)
            return try await f.service.task(task.key, as: f.viewer).category
        },
        Field(name: "external id", normalized: trimmed) { f, text in
            let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Tracked", externalID: text), as: f.member)
            return try await f.service.task(task.key, as: f.viewer).externalID
        },
        Field(name: "display name", normalized: trimmed) { f, text in
            let user = try await f.service.createUser(email: "name.\(UUID().uuidString.lowercased())@example.com", displayName: text)
            return try await f.service.user(.id(user.id)).displayName
        },
        Field(name: "email", normalized: { trimmed($0).lowercased() }) { f, text in
            let user = try await f.service.createUser(email: text, displayName: "Hostile")
            return try await f.service.user(.id(user.id)).email
        },
        Field(name: "team key", normalized: { trimmed($0).uppercased() }) { f, text in
            let team = try await f.service.createTeam(key: text, name: "Hostile", as: f.owner)
            return try await f.service.team(team.key, as: f.owner).team.key.rawValue
        },
        Field(name: "team name", normalized: trimmed) { f, text in
            let key = "H" + String(UInt32.random(in: 0...UInt32.max), radix: 36).uppercased()
            let team = try await f.service.createTeam(key: key, name: text, as: f.owner)
            return try await f.service.team(team.key, as: f.owner).team.name
        },
        Field(name: "list text filter", normalized: { _ in "" }) { f, text in
            _ = try await f.service.listTasks(in: f.team, TaskQuery(category: .named(text), text: text), as: f.viewer)
            return ""
        },
    ]

    /// The email variant of a sample: an address whose local part carries the text.
    static func emailVariant(_ text: String) -> String {
        "u\(UInt32.random(in: 0...UInt32.max)).\(text.filter { !$0.isWhitespace })@example.com"
    }

    @Test("SQL, shell, control characters, odd Unicode and 100 KB strings are stored verbatim or refused as invalid, never executed")
    func hostileText() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 4))
            var stored = 0, refused = 0
            for field in Self.fields {
                for (label, sample) in HostileText.samples {
                    for text in field.name == "email" ? [sample, Self.emailVariant(sample)] : [sample] {
                        do {
                            let value = try await field.write(fixture, text)
                            #expect(
                                value == field.normalized(text),
                                "\(field.name) \(label): stored \(HostileText.show(value ?? "nil")) for \(HostileText.show(text))")
                            stored += 1
                        } catch TaskError.validation {
                            refused += 1
                        } catch {
                            Issue.record("\(field.name) \(label): neither stored nor refused as invalid: \(error)")
                        }
                    }
                }
            }
            #expect(stored > 0 && refused > 0)
            // Nothing was executed: every table is still there, and nothing else appeared.
            let tables = try await database.withConnection { connection in
                try await connection.query(
                    "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' ORDER BY relname"
                )
                .map { try $0.decode(String.self, "relname") }
            }
            #expect(
                tables == [
                    "api_tokens", "idempotency_keys", "memberships", "schema_migrations", "task_changes", "task_counters", "task_history", "tasks",
                    "teams", "users",
                ])
            #expect(!FileManager.default.fileExists(atPath: "/tmp/x"))
        }
    }

    @Test("LIKE wildcards in a text filter match themselves, not any character")
    func wildcardsAreLiteral() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2))
            for title in ["100% done", "1000 things", "a_b", "axb", "back\\slash"] { try await fixture.makeTask(title) }
            for (text, expected) in [("100%", ["100% done"]), ("a_b", ["a_b"]), ("k\\s", ["back\\slash"])] {
                let page = try await fixture.service.listTasks(in: fixture.team, TaskQuery(text: text), as: fixture.viewer)
                #expect(page.tasks.map(\.title) == expected, "text filter \(HostileText.show(text))")
            }
        }
    }

    /// Writes `bytes` to a temporary file and reads it with `CSVReader` into task drafts
    /// (title, notes, category, external id), stopping at the first error.
    static func drafts(fromCSV bytes: [UInt8]) throws -> [TaskImportDraft] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reliability-\(UUID().uuidString).csv")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try CSVReader(path: url.path)
        _ = try reader.next()
        var drafts: [TaskImportDraft] = []
        while let record = try reader.next() {
            drafts.append(try TaskImportDraft(try TaskDraft(title: record[0], notes: record[1], category: record[2], externalID: record[3])))
        }
        return drafts
    }

    static let csvHeader = Array("title,notes,category,external_id\r\n".utf8)

    /// `text` as one quoted CSV field.
    static func quoted(_ text: String) -> [UInt8] {
        Array(("\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"").utf8)
    }

    @Test("a CSV file carrying SQL, shell and control characters imports verbatim")
    func hostileCSVImportsVerbatim() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2))
            let samples = HostileText.samples.filter {
                $0.text.count < 100 && $0.text == Self.trimmed($0.text) && !$0.text.contains(where: \.isNewline)
            }
            var bytes = Self.csvHeader
            for (index, sample) in samples.enumerated() {
                bytes += Self.quoted(sample.text) + Array(",".utf8) + Self.quoted(sample.text) + Array(",".utf8)
                bytes += Self.quoted(sample.text) + Array(",hostile-\(index)\r\n".utf8)
            }
            let drafts = try Self.drafts(fromCSV: bytes)
            let summary = try await fixture.service.importTasks(into: fixture.team, policy: .fail, drafts: drafts, as: fixture.member)
            #expect(summary.inserted == samples.count)
            let stored = try await fixture.service.listTasks(in: fixture.team, TaskQuery(limit: 1000), as: fixture.viewer).tasks
            for (index, sample) in samples.enumerated() {
                let task = stored.first { $0.externalID == "hostile-\(index)" }
                #expect(task?.title == sample.text && task?.notes == sample.text && task?.category == sample.text, "\(sample.label)")
            }
        }
    }

    @Test("invalid UTF-8 bytes in a CSV file refuse their record with the line, character and offset of the first bad byte")
    func invalidUTF8InCSV() throws {
        for (bad, character) in [([UInt8]([0xFF]), 4), ([0xC3, 0x28], 4), ([0xED, 0xA0, 0x80], 4), ([0xC3], 4)] {
            let bytes = Self.csvHeader + Array("ok,fine,cat,e1\r\nbad".utf8) + bad + Array("title,n,c,e2\r\n".utf8)
            #expect {
                _ = try Self.drafts(fromCSV: bytes)
            } throws: { error in
                guard let error = error as? CSVError, case .undecodable(let bytes, .utf8, let offset, _) = error.kind else { return false }
                return bytes.first == bad[0] && error.line == 3 && error.character == character && offset == Self.csvHeader.count + 19
                    && error.isRecoverable && error.record?.fields.first?.contains("\u{FFFD}") == true
            }
        }
    }

    @Test("a NUL in any text field is refused cleanly, never stored altered")
    func nulIsRefused() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2))
            for field in Self.fields where field.name != "list text filter" {
                let text = field.name == "email" ? "nul\u{0}x@example.com" : HostileText.nul
                do {
                    let value = try await field.write(fixture, text)
                    Issue.record("\(field.name): a NUL was accepted and \(HostileText.show(value ?? "nil")) stored for \(HostileText.show(text))")
                } catch TaskError.validation {
                    continue
                } catch let error as PGError {
                    Issue.record("\(field.name): a NUL reached the database, which refused it (\(error)); TaskCore should refuse it as invalid")
                } catch {
                    Issue.record("\(field.name): a NUL failed with \(error)")
                }
            }
            // The same through a CSV file: NUL is valid UTF-8, so the reader hands it on.
            let bytes = Self.csvHeader + Array("before".utf8) + [0x00] + Array("after,notes,cat,nul-1\r\n".utf8)
            do {
                let rows = try Self.drafts(fromCSV: bytes)
                _ = try await fixture.service.importTasks(into: fixture.team, policy: .fail, drafts: rows, as: fixture.member)
                let stored = try await fixture.service.listTasks(in: fixture.team, TaskQuery(text: "before"), as: fixture.viewer).tasks
                Issue.record("import: a NUL was accepted and \(stored.map { HostileText.show($0.title) }) stored")
            } catch TaskError.validation {
            } catch let error as PGError {
                Issue.record("import: a NUL reached the database, which refused it (\(error)); TaskCore should refuse it as invalid")
            }
        }
    }
}
