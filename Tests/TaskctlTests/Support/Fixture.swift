import Foundation
import Testing

/// A team of its own for one test, with a user in each role and one outside it, so tests can
/// run side by side in one database. Everything is set up through `taskctl` itself, run as
/// `runner` says: the built program against the test database, or in process over a service.
struct Fixture {
    /// Makes names unique: letters and digits.
    let suffix: String
    /// How `taskctl` runs.
    var runner: TaskctlRunner = .process

    /// The team's key, e.g. `TAB12CD`.
    var team: String { "T" + suffix }
    /// The owner, who created the team.
    var owner: String { email("owner") }
    /// An admin.
    var admin: String { email("admin") }
    /// A member.
    var member: String { email("member") }
    /// A viewer.
    var viewer: String { email("viewer") }
    /// A user in no team.
    var outsider: String { email("outsider") }

    /// The email of the fixture's user called `name`.
    func email(_ name: String) -> String { "\(name)-\(suffix.lowercased())@example.com" }

    /// Creates the users, the team and the memberships, running `taskctl` as `runner` says.
    static func make(runner: TaskctlRunner = .process) async throws -> Fixture {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let fixture = Fixture(suffix: String((0..<7).map { _ in alphabet.randomElement()! }), runner: runner)
        for name in ["owner", "admin", "member", "viewer", "outsider"] {
            try await fixture.expectSuccess(["user", "add", fixture.email(name), "--name", name.capitalized])
        }
        try await fixture.expectSuccess(["team", "create", fixture.team, "--name", "Team \(fixture.suffix)"], as: fixture.owner)
        for (name, role) in [("admin", "admin"), ("member", "member"), ("viewer", "viewer")] {
            try await fixture.expectSuccess(["team", "add-member", fixture.team, fixture.email(name), "--role", role], as: fixture.owner)
        }
        return fixture
    }

    /// Runs `taskctl arguments` as `actor`.
    func run(_ arguments: [String], as actor: String? = nil) async throws -> TaskctlResult {
        try await runner.run(arguments, actor)
    }

    /// Runs `taskctl arguments` as `actor`, expecting exit 0 and nothing on stderr.
    @discardableResult
    func expectSuccess(
        _ arguments: [String], as actor: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TaskctlResult {
        let result = try await run(arguments, as: actor)
        #expect(result.exitCode == 0, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.standardError.isEmpty, "\(arguments): \(result)", sourceLocation: sourceLocation)
        return result
    }

    /// Runs `taskctl arguments` as `actor`, expecting `code`, one line on stderr and nothing on stdout.
    @discardableResult
    func expectFailure(
        _ code: Int32, _ arguments: [String], as actor: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TaskctlResult {
        let result = try await run(arguments, as: actor)
        #expect(result.exitCode == code, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.isEmpty, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.standardError.hasPrefix("taskctl: error: "), "\(arguments): \(result)", sourceLocation: sourceLocation)
        if code != 2 {
            #expect(result.standardError.filter { $0 == "\n" }.count == 1, "\(arguments): \(result)", sourceLocation: sourceLocation)
        }
        return result
    }

    /// Creates a task and returns its key.
    func addTask(_ title: String, _ options: [String] = [], as actor: String? = nil) async throws -> String {
        let result = try await expectSuccess(["task", "add", "--team", team, title] + options, as: actor ?? member)
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The task's JSON document.
    func show(_ key: String) async throws -> [String: Any] {
        try await expectSuccess(["--json", "task", "show", key], as: viewer).object()
    }
}
