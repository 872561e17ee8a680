import APITokens
import Foundation
import TaskCore
import TaskStoreMemory
import TaskbaseClient
import TaskbaseServer
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
        try await service.setRole(.viewer, for: .id(users[1].id), in: team, as: .id(users[0].id))
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
