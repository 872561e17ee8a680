import Foundation
import TaskCore
import TaskbaseWire

/// TaskCore values to request documents and back: the one place the client maps the wire.
extension TaskbaseClient {
    static func userText(_ ref: UserRef) -> String { pathName(ref) }

    static func request(_ draft: TaskDraft) -> CreateTaskRequest {
        CreateTaskRequest(
            title: draft.title, notes: draft.notes, status: draft.status.rawValue, priority: draft.priority.rawValue,
            dueDate: draft.dueDate?.description, assignee: draft.assignee.map(userText), category: draft.category, externalID: draft.externalID)
    }

    static func patch(_ changes: TaskChanges) -> TaskMergePatch {
        var patch = TaskMergePatch()
        if let title = changes.title { patch.title = .set(title) }
        if let notes = changes.notes { patch.notes = .set(notes) }
        if let status = changes.status { patch.status = .set(status.rawValue) }
        if let priority = changes.priority { patch.priority = .set(priority.rawValue) }
        if case .set(let due) = changes.dueDate { patch.dueDate = .set(due?.description) }
        if case .set(let assignee) = changes.assignee { patch.assignee = .set(assignee.map(userText)) }
        if case .set(let category) = changes.category { patch.category = .set(category) }
        if case .set(let externalID) = changes.externalID { patch.externalID = .set(externalID) }
        return patch
    }

    /// The list route's parameters, named as `taskctl task list` names its options.
    static func queryItems(_ query: TaskQuery) -> [URLQueryItem] {
        var items = query.statuses.sorted().map { URLQueryItem(name: "status", value: $0.rawValue) }
        switch query.assignee {
        case nil: break
        case .unassigned: items.append(URLQueryItem(name: "unassigned", value: "true"))
        case .user(let ref): items.append(URLQueryItem(name: "assignee", value: userText(ref)))
        }
        switch query.category {
        case nil: break
        case .uncategorized: items.append(URLQueryItem(name: "uncategorized", value: "true"))
        case .named(let name): items.append(URLQueryItem(name: "category", value: name))
        }
        if let date = query.dueBefore { items.append(URLQueryItem(name: "due_before", value: date.description)) }
        if let date = query.dueAfter { items.append(URLQueryItem(name: "due_after", value: date.description)) }
        if query.overdueOnly { items.append(URLQueryItem(name: "overdue", value: "true")) }
        if let text = query.text { items.append(URLQueryItem(name: "text", value: text)) }
        items.append(URLQueryItem(name: "sort", value: query.sort.rawValue))
        if query.descending { items.append(URLQueryItem(name: "desc", value: "true")) }
        items.append(URLQueryItem(name: "limit", value: String(query.limit)))
        if let after = query.after { items.append(URLQueryItem(name: "after", value: after.encoded)) }
        return items
    }

    /// The task a document describes, its team and users resolved to ids.
    func task(from document: TaskDocument) async throws -> TaskItem {
        let key = try TaskKey(parsing: document.key, field: "key")
        let teamID: TeamID
        if let stated = document.teamID {
            // The document's own word: the key may name another team than when it was learnt.
            teamID = TeamID(stated)
            await directory.learn(key.team, teamID)
        } else {
            teamID = try await self.teamID(key.team)
        }
        await directory.learn(document.statedUserIDs)
        var emails = [document.createdBy, document.updatedBy]
        if let assignee = document.assignee.value { emails.append(assignee) }
        let ids = try await userIDs(emails, in: key.team)
        do {
            return try document.task(teamID: teamID) { ids[$0] }
        } catch let error as TaskError {
            throw TaskbaseClientError.invalidResponse("task \(document.key): \(error)")
        }
    }

    /// The history entry a document describes; values are as the store records them (an
    /// assignee as its user id, notes emptied as empty text rather than null).
    func entry(from document: HistoryDocument, of taskID: TaskID, team: TeamKey) async throws -> TaskHistoryEntry {
        guard let kind = TaskHistoryEntry.Kind(rawValue: document.kind) else {
            throw TaskbaseClientError.invalidResponse("history kind \(document.kind)")
        }
        let assignees = document.changes.filter { $0.field == TaskField.assignee.rawValue }.flatMap { [$0.old.value, $0.new.value] }
        await directory.learn(document.statedUserIDs)
        let ids = try await userIDs([document.actor] + assignees.compactMap(\.self), in: team)
        let isCreation = kind == .created || kind == .imported
        let changes = try document.changes.map { change -> FieldChange in
            guard let field = TaskField(rawValue: change.field) else { throw TaskbaseClientError.invalidResponse("history field \(change.field)") }
            func stored(_ value: String?, isOld: Bool) -> String? {
                if field == .assignee { return value.flatMap { ids[$0]?.description } }
                if field == .notes, value == nil, !(isOld && isCreation) { return "" }
                return value
            }
            return FieldChange(field: field, old: stored(change.old.value, isOld: true), new: stored(change.new.value, isOld: false))
        }
        return TaskHistoryEntry(
            taskID: taskID, version: document.version, actorID: ids[document.actor]!, at: document.at, kind: kind, changes: changes)
    }

    static func summary(from document: SummaryDocument) throws -> TeamSummary {
        let team = try document.team.membership().team
        var summary = TeamSummary(team: team, counts: TaskCounts(), members: [])
        summary.total = document.total
        for status in TaskStatus.allCases { summary.byStatus[status] = document.byStatus[status.rawValue] ?? 0 }
        summary.byCategory = document.byCategory.map { NamedCount(name: $0.name, count: $0.count) }
        summary.overdue = document.overdue
        summary.openByAssignee = document.openByAssignee.map { NamedCount(name: $0.name, count: $0.count) }
        return summary
    }

    /// The id of team `key`, asking the server once.
    func teamID(_ key: TeamKey) async throws -> TeamID {
        if let id = await directory.teamID(key) { return id }
        return try await team(key).team.id
    }

    /// The ids of `emails` (or `#id` texts), reading the team's members when one is not known yet.
    func userIDs(_ emails: [String], in team: TeamKey) async throws -> [String: UserID] {
        var ids = await directory.userIDs(emails)
        if ids.count < Set(emails).count {
            _ = try await members(of: team)
            ids = await directory.userIDs(emails)
        }
        if let unknown = emails.first(where: { ids[$0] == nil }) {
            throw TaskbaseClientError.invalidResponse("\(unknown) is not a member of team \(team), so the client cannot name their id")
        }
        return ids
    }
}

/// What the client has learnt of ids the documents name by key or email.
actor ClientDirectory {
    private var teams: [TeamKey: TeamID] = [:]
    private var users: [String: UserID] = [:]

    func learn(_ teams: [Team]) {
        for team in teams { self.teams[team.key] = team.id }
    }

    func learn(_ key: TeamKey, _ id: TeamID) {
        teams[key] = id
    }

    /// Forgets team `key`'s id (the team was deleted: the key may name another one later).
    func forget(_ key: TeamKey) {
        teams[key] = nil
    }

    func learn(_ users: [User]) {
        for user in users { self.users[user.email] = user.id }
    }

    /// Ids a document states for the emails it names (people who left the team among them).
    func learn(_ ids: [String: UserID]) {
        users.merge(ids) { _, stated in stated }
    }

    func teamID(_ key: TeamKey) -> TeamID? { teams[key] }

    /// The known ids among `emails`; a `#id` text is its own id.
    func userIDs(_ emails: [String]) -> [String: UserID] {
        var ids: [String: UserID] = [:]
        for email in emails {
            if email.hasPrefix("#"), let number = Int64(email.dropFirst()) {
                ids[email] = UserID(number)
            } else if let id = users[email] {
                ids[email] = id
            }
        }
        return ids
    }
}
