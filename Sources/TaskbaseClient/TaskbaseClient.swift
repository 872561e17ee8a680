import Foundation
import TaskCore
import TaskbaseWire

/// Taskbase over HTTP, as the token's user: a `TaskSession` whose every call is one request
/// to `taskserve` (`/v1`), answering with the TaskCore values and `TaskError`s the service in
/// process gives. Safe to share between tasks.
public struct TaskbaseClient: TaskSession, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let transport: HTTPTransport
    let directory: ClientDirectory

    /// A client of the server at `configuration.baseURL`, acting with `configuration.token`.
    public init(_ configuration: ClientConfiguration) {
        transport = HTTPTransport(configuration: configuration)
        directory = ClientDirectory()
    }

    /// A client of the server at `baseURL`, acting with `token`, with the default patience.
    public init(baseURL: URL, token: String) {
        self.init(ClientConfiguration(baseURL: baseURL, token: token))
    }

    /// The configuration in use.
    public var configuration: ClientConfiguration { transport.configuration }

    /// The server and the masked token (`ClientConfiguration.maskedToken`).
    public var description: String { "TaskbaseClient(\(configuration))" }

    /// The configuration, the token masked.
    public var debugDescription: String { "TaskbaseClient(\(String(reflecting: configuration)))" }

    /// What `dump` and debuggers show: the configuration, the token masked.
    public var customMirror: Mirror { Mirror(self, children: ["configuration": configuration], displayStyle: .struct) }

    // MARK: Requests

    func get<Document: Decodable>(_ type: Document.Type, _ path: String..., query: [URLQueryItem] = []) async throws -> Document {
        try decode(type, try await transport.send(HTTPRequest(method: "GET", path: path, query: query)))
    }

    func send<Document: Decodable>(
        _ type: Document.Type, _ method: String, _ path: [String], body: some Encodable, headers: [String: String] = [:]
    ) async throws -> Document {
        var headers = headers
        if method == "POST" { headers["Idempotency-Key"] = UUID().uuidString }
        let request = HTTPRequest(method: method, path: path, body: try WireJSON.makeEncoder().encode(body), headers: headers)
        return try decode(type, try await transport.send(request))
    }

    /// A DELETE carries an `Idempotency-Key` as a POST does, the same on each retry: a retry
    /// after an answer lost (the deletion done) gets the first answer, not the 404 of a team or
    /// membership that attempt removed.
    @discardableResult
    func delete(_ path: [String], headers: [String: String] = [:]) async throws -> HTTPResponse {
        var headers = headers
        headers["Idempotency-Key"] = UUID().uuidString
        return try await transport.send(HTTPRequest(method: "DELETE", path: path, headers: headers))
    }

    func decode<Document: Decodable>(_ type: Document.Type, _ response: HTTPResponse) throws -> Document {
        do {
            return try WireJSON.makeDecoder().decode(type, from: response.body)
        } catch {
            throw TaskbaseClientError.invalidResponse("\(Document.self): \(error)")
        }
    }

    static func versionHeader(_ version: Int64?) -> [String: String] {
        version.map { ["If-Match": "\"\($0)\""] } ?? [:]
    }

    // MARK: TaskSession

    /// The token's user.
    public func me() async throws -> User {
        let user = try await get(UserDocument.self, "v1", "me").user
        await directory.learn([user])
        return user
    }

    /// The teams the token's user belongs to.
    public func teams() async throws -> [TeamMembership] {
        let memberships = try await get([TeamDocument].self, "v1", "teams").map { try $0.membership() }
        await directory.learn(memberships.map(\.team))
        return memberships
    }

    /// Creates a team owned by the token's user.
    public func createTeam(key: String, name: String) async throws -> Team {
        let team = try await send(TeamDocument.self, "POST", ["v1", "teams"], body: CreateTeamRequest(key: key, name: name)).membership().team
        await directory.learn([team])
        return team
    }

    /// One team and the token user's role.
    public func team(_ key: TeamKey) async throws -> TeamMembership {
        let membership = try await get(TeamDocument.self, "v1", "teams", key.rawValue).membership()
        await directory.learn([membership.team])
        return membership
    }

    /// Renames a team.
    public func renameTeam(_ key: TeamKey, to name: String) async throws -> Team {
        try await send(TeamDocument.self, "PATCH", ["v1", "teams", key.rawValue], body: RenameTeamRequest(name: name)).membership().team
    }

    /// Deletes a team.
    public func deleteTeam(_ key: TeamKey) async throws {
        try await delete(["v1", "teams", key.rawValue])
        await directory.forget(key)
    }

    /// The team's members.
    public func members(of team: TeamKey) async throws -> [Member] {
        let members = try await get([MemberDocument].self, "v1", "teams", team.rawValue, "members").map { try $0.member() }
        await directory.learn(members.map(\.user))
        return members
    }

    /// Adds a member or changes their role.
    @discardableResult
    public func setRole(_ role: Role, for user: UserRef, in team: TeamKey) async throws -> Member {
        let path = ["v1", "teams", team.rawValue, "members", Self.pathName(user)]
        let member = try await naming(user) { try await send(MemberDocument.self, "PUT", path, body: MemberRoleRequest(role: role.rawValue)) }
            .member()
        await directory.learn([member.user])
        return member
    }

    /// Removes a member, saying how many of their tasks in the team it unassigned.
    @discardableResult
    public func removeMember(_ user: UserRef, from team: TeamKey) async throws -> MemberRemoval {
        let path = ["v1", "teams", team.rawValue, "members", Self.pathName(user)]
        return try await naming(user) {
            let response = try await delete(path)
            // A retry told the removal took effect, its answer (how many tasks it unassigned) lost.
            if response.status == 204 && response.body.isEmpty {
                throw TaskbaseClientError.tookEffect(
                    .lost, detail: "the removal of \(user.written) from team \(team) took effect; its answer was lost with its first attempt")
            }
            return try decode(MemberRemovalDocument.self, response)
        }.removal()
    }

    /// Creates a task.
    public func createTask(in team: TeamKey, _ draft: TaskDraft) async throws -> TaskItem {
        let document = try await naming(draft.assignee) {
            try await send(TaskDocument.self, "POST", ["v1", "teams", team.rawValue, "tasks"], body: Self.request(draft))
        }
        return try await task(from: document)
    }

    /// Reads a task.
    public func task(_ key: TaskKey) async throws -> TaskItem {
        try await task(from: try await get(TaskDocument.self, "v1", "tasks", key.description))
    }

    /// Edits a task (JSON Merge Patch, `If-Match` when a version is expected).
    public func updateTask(_ key: TaskKey, _ changes: TaskChanges, expectedVersion: Int64?) async throws -> TaskItem {
        let assignee = if case .set(let assignee) = changes.assignee { assignee } else { UserRef?.none }
        let document = try await naming(assignee) {
            try await send(
                TaskDocument.self, "PATCH", ["v1", "tasks", key.description], body: Self.patch(changes), headers: Self.versionHeader(expectedVersion))
        }
        return try await task(from: document)
    }

    /// Deletes a task (`If-Match` when a version is expected).
    public func deleteTask(_ key: TaskKey, expectedVersion: Int64?) async throws {
        try await delete(["v1", "tasks", key.description], headers: Self.versionHeader(expectedVersion))
    }

    /// One page of the team's tasks.
    public func listTasks(in team: TeamKey, _ query: TaskQuery) async throws -> TaskPage {
        try query.validate()
        let assignee = if case .user(let assignee) = query.assignee { assignee } else { UserRef?.none }
        let document = try await naming(assignee) {
            try await get(TaskPageDocument.self, "v1", "teams", team.rawValue, "tasks", query: Self.queryItems(query))
        }
        var tasks: [TaskItem] = []
        for task in document.tasks { tasks.append(try await self.task(from: task)) }
        return TaskPage(tasks: tasks, nextCursor: try document.nextCursor.value.map { try TaskCursor(encoded: $0) })
    }

    /// A page of a task's history; the next page's cursor comes from the `Link` header.
    public func history(of key: TaskKey, _ query: HistoryQuery) async throws -> HistoryPage {
        try query.validate()
        var items = [URLQueryItem(name: "limit", value: String(query.limit))]
        if let after = query.after { items.append(URLQueryItem(name: "after", value: after.encoded)) }
        let response = try await transport.send(HTTPRequest(method: "GET", path: ["v1", "tasks", key.description, "history"], query: items))
        let documents = try decode([HistoryDocument].self, response)
        let next = try Self.nextCursor(inLink: response.header("Link")).map(HistoryCursor.init(encoded:))
        guard let first = documents.first else { return HistoryPage(entries: [], nextCursor: next) }
        // The documents name the task's id (a deleted task has no other document); an older
        // server's do not, and the task itself does.
        let taskID: TaskID
        if let id = first.taskID { taskID = TaskID(id) } else { taskID = try await task(key).id }
        var entries: [TaskHistoryEntry] = []
        for document in documents { entries.append(try await entry(from: document, of: taskID, team: key.team)) }
        return HistoryPage(entries: entries, nextCursor: next)
    }

    /// The `after` parameter of a `Link` header's `rel="next"` target (RFC 8288), if any.
    static func nextCursor(inLink header: String?) -> String? {
        guard let header else { return nil }
        for link in header.split(separator: ",") {
            let parts = link.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.dropFirst().contains(where: { $0.replacingOccurrences(of: " ", with: "") == "rel=\"next\"" }),
                let target = parts.first, target.hasPrefix("<"), target.hasSuffix(">"),
                let components = URLComponents(string: String(target.dropFirst().dropLast()))
            else { continue }
            return components.queryItems?.first { $0.name == "after" }?.value
        }
        return nil
    }

    /// The team's summary.
    public func summary(of team: TeamKey) async throws -> TeamSummary {
        let document = try await get(SummaryDocument.self, "v1", "teams", team.rawValue, "summary")
        return try Self.summary(from: document)
    }

    /// The team's changes over server-sent events (`after` is sent as `Last-Event-ID`),
    /// reconnecting with the last event's id after a dropped connection. An `after` below 0
    /// is 0, as in process: every logged change is above either.
    public func changes(in team: TeamKey, after: Int64?) async throws -> TaskChangeStream {
        try await EventFeed(client: self, team: team).open(after: after.map { max($0, 0) })
    }

    // MARK: Users on the wire

    /// The text the server reads as `user`: `#id`, or the email. The server reads digits, or
    /// `#` and digits, as an id, so an email like "2" would reach user #2; in process it names
    /// nobody (every stored address has an `@`), as do an empty email (no path segment at all
    /// over HTTP), one holding a NUL, and an id of 0 or below (an email to the server). Each of
    /// these goes as its `standIn(for:)`, which names nobody on the server either, and
    /// `naming(_:_:)` puts the reference back into what the server says of it.
    static func pathName(_ user: UserRef) -> String {
        standIn(for: user) ?? user.written
    }

    /// What is sent in place of `user` when the server would not read `user` as the service in
    /// process does (`pathName`); nil when it would.
    static func standIn(for user: UserRef) -> String? {
        switch user {
        case .id(let id): return id.rawValue > 0 ? nil : "#\(Int64.max)"
        case .email(let email):
            guard case .email(let read) = UserRef(email) else { return nobody }
            return read.isEmpty || TextRules.holdsNUL(read) ? nobody : nil
        }
    }

    /// An email that names nobody (it has no `@`), and that the server reads as an email.
    static let nobody = "nobody.taskbase-client-stand-in"

    /// What `body` answers; a refusal that names `user`'s stand-in names `user` as written
    /// instead, as the service in process does.
    func naming<Value>(_ user: UserRef?, _ body: () async throws -> Value) async throws -> Value {
        guard let user, let standIn = Self.standIn(for: user) else { return try await body() }
        do {
            return try await body()
        } catch let error as TaskError {
            throw error.replacing(standIn, with: user.written)
        }
    }
}

extension TaskError {
    /// This refusal with `text` replaced by `replacement` wherever it says it.
    func replacing(_ text: String, with replacement: String) -> TaskError {
        func replaced(_ said: String) -> String { said.replacingOccurrences(of: text, with: replacement) }
        return switch self {
        case .notFound(let what): .notFound(what: replaced(what))
        case .permissionDenied(let what, let why): .permissionDenied(what: replaced(what), why: replaced(why))
        case .conflict(let what, let version): .conflict(what: replaced(what), currentVersion: version)
        case .alreadyExists(let what): .alreadyExists(what: replaced(what))
        case .validation(let field, let reason): .validation(field: field, reason: replaced(reason))
        }
    }
}
