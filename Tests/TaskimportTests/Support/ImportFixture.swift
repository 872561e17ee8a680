import CSVImport
import Foundation
import TaskCore
import TaskbaseTestSupport
import Testing

/// A fresh team for one test: an owner who imports, two members to assign tasks to, a viewer,
/// and a folder for the test's files, removed with the fixture.
final class ImportFixture: Sendable {
    let service: TaskService
    let team: TeamKey
    let owner: String
    let viewer: String
    /// Members tasks can be assigned to.
    let ann: String
    let bo: String
    let folder: URL

    static func make() async throws -> ImportFixture {
        let service = try await ImportTestDatabase.service()
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        func user(_ name: String) async throws -> String {
            try await service.createUser(email: "\(name).\(suffix)@example.com", displayName: name.capitalized).email
        }
        let owner = try await user("owner"), viewer = try await user("viewer"), ann = try await user("ann"), bo = try await user("bo")
        let team = try await service.createTeam(key: "I" + suffix.uppercased(), name: "Import \(suffix)", as: .email(owner)).key
        try await service.setRole(.viewer, for: .email(viewer), in: team, as: .email(owner))
        for member in [ann, bo] {
            try await service.setRole(.member, for: .email(member), in: team, as: .email(owner))
        }
        let folder = try scratchFolder("taskimport-test")
        return ImportFixture(service: service, team: team, owner: owner, viewer: viewer, ann: ann, bo: bo, folder: folder)
    }

    private init(service: TaskService, team: TeamKey, owner: String, viewer: String, ann: String, bo: String, folder: URL) {
        (self.service, self.team, self.owner, self.viewer, self.ann, self.bo, self.folder) = (service, team, owner, viewer, ann, bo, folder)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Writes `bytes` to a file in the test's folder and returns its path.
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Writes `text` to a file in the test's folder and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        try file(name, Array(text.utf8))
    }

    /// Runs taskimport on `path` into the team as `actor` (the owner unless said otherwise).
    func importFile(
        _ path: String, as actor: String? = nil, _ options: [String] = [], input: String? = nil
    ) async throws -> TaskimportProcess.Result {
        try await TaskimportProcess.run([path, "--team", team.rawValue, "--as", actor ?? owner, "--no-progress"] + options, input: input)
    }

    /// Every task of the team, by number.
    func tasks() async throws -> [TaskItem] {
        try await service.listTasks(in: team, TaskQuery(limit: 1000), as: .email(owner)).tasks
    }

    /// The `--json` summary of a run.
    func summary(_ result: TaskimportProcess.Result) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        return try #require(object as? [String: Any], "stdout is not a JSON object: \(result.standardOutput) / \(result.standardError)")
    }
}
