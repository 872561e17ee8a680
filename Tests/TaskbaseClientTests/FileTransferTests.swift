import APITokens
import Foundation
import TaskCore
import TaskStoreMemory
import TaskbaseClient
import TaskbaseServer
import TaskbaseTestSupport
import Testing

@Suite("The client's whole-file calls: importTasks and exportTasks against a real server")
struct FileTransferTests {
    /// A server over a fresh memory store with a team, its owner and a viewer, and a client for each.
    struct Setup {
        let server: APIServer
        let service: TaskService
        let team: TeamKey
        let owner: TaskbaseClient, viewer: TaskbaseClient, outsider: TaskbaseClient
    }

    static let secrets = TokenSecrets(key: "file transfer test key")

    static func start() async throws -> Setup {
        let service = TaskService(store: MemoryTaskStore())
        let server = try APIServer.start(service: service, options: APIOptions(secrets: secrets, version: "test"))
        var clients: [TaskbaseClient] = []
        var users: [User] = []
        for name in ["owner", "viewer", "outsider"] {
            let user = try await service.createUser(email: "\(name)@example.com", displayName: name.capitalized)
            let (secret, digest) = try secrets.generate()
            _ = try await service.createToken(for: .id(user.id), name: "test", lifetime: 3_600, digest: digest)
            clients.append(TaskbaseClient(ClientConfiguration(baseURL: URL(string: server.baseURL)!, token: secret, backoff: .milliseconds(20))))
            users.append(user)
        }
        let team = try await service.createTeam(key: "FILES", name: "Files", as: .id(users[0].id)).key
        try await service.setRole(.viewer, for: .email(users[1].email), in: team, as: .id(users[0].id))
        return Setup(server: server, service: service, team: team, owner: clients[0], viewer: clients[1], outsider: clients[2])
    }

    static let csv = Data(
        """
        Summary,Status,Due,Ref
        Write the spec,In Progress,2026-03-10,SPEC-1
        "Review it, twice",To Do,,SPEC-2
        =1+1,Done,,SPEC-3

        """.utf8)

    @Test("a file imports with taskimport's settings and summary; exported and imported again it changes nothing")
    func roundTrip() async throws {
        let s = try await Self.start()
        let settings = ImportSettings(columns: ["title": "Summary", "due_date": "Due", "external_id": "Ref"])
        let dry = try await s.owner.importTasks(csv: Self.csv, into: s.team, settings: ImportSettings(dryRun: true, columns: settings.columns))
        #expect(dry.dryRun && dry.inserted == 3 && dry.changed)
        #expect(try await s.viewer.listTasks(in: s.team).tasks.isEmpty, "a dry run writes nothing")
        let report = try await s.owner.importTasks(csv: Self.csv, into: s.team, settings: settings)
        #expect((report.read, report.inserted, report.rejected, report.team) == (3, 3, 0, "FILES"))
        let titles = try await s.viewer.allTasks(in: s.team).map(\.title)
        #expect(titles == ["Write the spec", "Review it, twice", "=1+1"])

        let exported = try await s.viewer.exportTasks(of: s.team)
        let text = String(decoding: exported, as: UTF8.self)
        #expect(text.hasPrefix("External ID,Title,Notes,Status,Priority,Due Date,Assignee,Category\r\n"))
        #expect(text.contains("SPEC-2,\"Review it, twice\","))
        #expect(String(decoding: try await s.viewer.exportTasks(of: s.team, defusingFormulas: true), as: UTF8.self).contains("SPEC-3,'=1+1,"))
        let again = try await s.owner.importTasks(csv: exported, into: s.team)
        #expect(!again.changed && again.unchanged == 3)
        await s.server.shutdown(grace: .seconds(2))
    }

    @Test("refusals come back as the service's errors: a bad file, a viewer's import, an outsider's export, a known id under fail")
    func refusals() async throws {
        let s = try await Self.start()
        let noTitle = Data("Status\nTo Do\n".utf8)
        let refused = await Result { try await s.owner.importTasks(csv: noTitle, into: s.team) }
        guard case .failure(TaskError.validation(let field, let reason)) = refused else {
            Issue.record("a file without a title column came back \(refused)")
            return
        }
        #expect(field == "body" && reason.lowercased().contains("title"), "\(reason)")
        let viewerImport = await Result { try await s.viewer.importTasks(csv: Self.csv, into: s.team) }
        guard case .failure(TaskError.permissionDenied) = viewerImport else {
            Issue.record("a viewer's import came back \(viewerImport)")
            return
        }
        #expect(await Result { try await s.outsider.exportTasks(of: s.team) }.taskError == .notFound(what: "team FILES"))
        _ = try await s.owner.importTasks(csv: Self.csv, into: s.team, settings: ImportSettings(columns: ["title": "Summary", "external_id": "Ref"]))
        let duplicate = await Result {
            try await s.owner.importTasks(
                csv: Self.csv, into: s.team, settings: ImportSettings(onConflict: .fail, columns: ["title": "Summary", "external_id": "Ref"]))
        }
        #expect(duplicate.isAlreadyExists, "\(duplicate)")
        await s.server.shutdown(grace: .seconds(2))
    }
}

@Suite("The client's file calls: importTasks(contentsOf:) and exportTasks(of:to:) stream from and to disk")
struct FileOnDiskTests {
    @Test("a file on disk imports as the same bytes in memory would; an export to a file holds what the in-memory export returns")
    func fromAndToDisk() async throws {
        let s = try await FileTransferTests.start()
        let directory = try scratchFolder("taskbase-files")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Enough rows that the body is sent in many pieces, with a multi-byte title among them.
        var text = "Summary,Ref,Notes\n"
        for number in 1...3_000 { text += "Task \(number) — ünïcödé,REF-\(number),\(String(repeating: "n", count: number % 97))\n" }
        let source = directory.appendingPathComponent("tasks.csv")
        try Data(text.utf8).write(to: source)
        let settings = ImportSettings(columns: ["title": "Summary", "external_id": "Ref"])
        let report = try await s.owner.importTasks(contentsOf: source, into: s.team, settings: settings)
        #expect((report.read, report.inserted, report.rejected) == (3_000, 3_000, 0))
        #expect(try await s.viewer.listTasks(in: s.team).tasks.first?.title == "Task 1 — ünïcödé")

        let destination = directory.appendingPathComponent("export.csv")
        try Data("an older export\n".utf8).write(to: destination)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination.path)
        try await s.viewer.exportTasks(of: s.team, to: destination)
        let mode = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "a replaced export keeps its permissions: \(String(mode ?? 0, radix: 8))")
        let inMemory = try await s.viewer.exportTasks(of: s.team)
        #expect(try Data(contentsOf: destination) == inMemory)
        #expect(String(decoding: inMemory, as: UTF8.self).contains("REF-3000,Task 3000 — ünïcödé,"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["export.csv", "tasks.csv"])
        let again = try await s.owner.importTasks(contentsOf: destination, into: s.team)
        #expect(!again.changed && again.unchanged == 3_000)
        await s.server.shutdown(grace: .seconds(2))
    }

    @Test(
        "a file that cannot be read is a file error before anything is sent; a refused export leaves the destination as it was and nothing in the temporary folder"
    )
    func localFileErrors() async throws {
        let s = try await FileTransferTests.start()
        let directory = try scratchFolder("taskbase-files")
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing.csv")
        for (file, words) in [(missing, "no such file"), (directory, "a directory")] {
            let outcome = await Result { try await s.owner.importTasks(contentsOf: file, into: s.team) }
            guard case .failure(TaskbaseClientError.file(let detail)) = outcome else {
                Issue.record("importing \(file.path) came back \(outcome)")
                continue
            }
            #expect(detail.contains(file.path) && detail.contains(words), "\(detail)")
        }
        #expect(try await s.owner.listTasks(in: s.team).tasks.isEmpty)

        let kept = directory.appendingPathComponent("kept.csv")
        try Data("kept\n".utf8).write(to: kept)
        let downloadsBefore = temporaryDownloads()
        #expect(await Result { try await s.outsider.exportTasks(of: s.team, to: kept) }.taskError == .notFound(what: "team FILES"))
        #expect(try String(contentsOf: kept, encoding: .utf8) == "kept\n")
        let nowhere = directory.appendingPathComponent("no-such-directory/export.csv")
        let unwritable = await Result { try await s.owner.exportTasks(of: s.team, to: nowhere) }
        guard case .failure(TaskbaseClientError.file(let detail)) = unwritable else {
            Issue.record("an export into a missing directory came back \(unwritable)")
            return
        }
        #expect(detail.contains(nowhere.path), "\(detail)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["kept.csv"])
        // corelibs' download tasks left the refusal's body and the unplaceable export there.
        #expect(temporaryDownloads().subtracting(downloadsBefore).isEmpty)
        await s.server.shutdown(grace: .seconds(2))
    }
}

extension Result where Failure == any Error {
    /// The `TaskError` a failure carries, nil otherwise.
    var taskError: TaskError? {
        if case .failure(let error as TaskError) = self { return error }
        return nil
    }

    var isAlreadyExists: Bool {
        if case .failure(TaskError.alreadyExists) = self { return true }
        return false
    }
}
