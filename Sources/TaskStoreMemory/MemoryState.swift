import Foundation
import TaskCore

/// Everything the memory store holds, as one value: a mutation that fails part-way is
/// undone by dropping a copy, which is how imports stay atomic.
struct MemoryState {
    var users: [UserID: User] = [:]
    var userIDsByEmail: [String: UserID] = [:]
    var teams: [TeamID: Team] = [:]
    var teamIDsByKey: [TeamKey: TeamID] = [:]
    var roles: [TeamID: [UserID: Role]] = [:]
    var tasks: [TaskKey: TaskItem] = [:]
    var taskKeysByExternalID: [TeamID: [String: TaskKey]] = [:]
    var lastTaskNumber: [TeamID: Int64] = [:]
    /// Each team's history by task number: it outlives a deleted task (numbers are never reused).
    var history: [TeamID: [Int64: [TaskHistoryEntry]]] = [:]
    /// Each team's change log, oldest first, and the sequence of its last entry.
    var changeLog: [TeamID: [TaskFeedEvent]] = [:]
    var lastChange: [TeamID: Int64] = [:]
    /// How many entries a team's log keeps; a watcher resuming before the oldest gets a resync.
    var changeLogLimit = Int.max
    /// The doorbells of each team's watchers, by listener id.
    var doorbells: [TeamID: [Int: AsyncThrowingStream<Void, any Error>.Continuation]] = [:]
    var lastListenerID = 0
    var tokens: [TokenID: APIToken] = [:]
    /// Idempotency keys by user and key (`IdempotencyRepository`).
    var idempotencyKeys: [IdempotencyKeyName: IdempotencyKeyClaim] = [:]
    var tokenIDsByHash: [[UInt8]: TokenID] = [:]
    var tokenListeners: [Int: AsyncThrowingStream<Void, any Error>.Continuation] = [:]
    var lastID: Int64 = 0

    /// A fresh id for any entity; ids are never reused.
    mutating func nextID<Entity>() -> EntityID<Entity> {
        lastID += 1
        return EntityID(lastID)
    }

    func user(_ ref: UserRef) -> User? {
        switch ref {
        case .id(let id): users[id]
        case .email(let email): userIDsByEmail[UserFields.normalizedEmailKey(email)].flatMap { users[$0] }
        }
    }

    /// Whether `actor` may see `target` (`UserVisibility`), to add them by email or not; nil is
    /// the administrator.
    func sees(_ target: User, as actor: UserRef?, toAdd: Bool = false) -> Bool {
        let actingUser = actor.flatMap(user)
        var sharesATeam = false, managesATeam = false
        if let acting = actingUser {
            for members in roles.values {
                guard let role = members[acting.id] else { continue }
                sharesATeam = sharesATeam || members[target.id] != nil
                managesATeam = managesATeam || role >= .admin
            }
        }
        return UserVisibility.sees(
            target, actor: actingUser, isAdministrator: actor == nil, sharesATeam: sharesATeam, managesATeam: managesATeam,
            toAdd: toAdd)
    }

    /// How many enabled owners `roles` (one team's) holds.
    func enabledOwners(in roles: [UserID: Role]) -> Int {
        roles.count { $0.value == .owner && users[$0.key]?.isDisabled == false }
    }

    /// Gathers the facts for `access` in team `key` and lets TaskCore judge them.
    func gate(_ access: AccessRequirement, team key: TeamKey, subject: String) throws -> TeamAccess {
        let actor = user(access.actor)
        let team = teamIDsByKey[key].flatMap { teams[$0] }
        let role = team.flatMap { team in actor.flatMap { roles[team.id]?[$0.id] } }
        let verified = try access.verify(AccessFacts(actor: actor, role: role), subject: subject)
        guard let team, let role else { throw TaskError.notFound(what: subject) }
        return TeamAccess(team: team, actor: verified, role: role)
    }

    /// The task behind `key` once `access` passes; a missing task reads exactly like a hidden one.
    func gatedTask(_ key: TaskKey, access: AccessRequirement) throws -> (TeamAccess, TaskItem) {
        let subject = "task \(key)"
        let gate = try gate(access, team: key.team, subject: subject)
        guard let task = tasks[key] else { throw TaskError.notFound(what: subject) }
        return (gate, task)
    }

    /// The id of the assignee `ref` names, judged by `AssigneeRule` with the users `actor` may
    /// see (as Postgres looks them up under the actor's row-level security); nil stays nil.
    func assigneeID(_ ref: UserRef?, in team: Team, as actor: UserRef?) throws -> UserID? {
        guard let ref else { return nil }
        let user = user(ref).flatMap { sees($0, as: actor) ? $0 : nil }
        return try AssigneeRule.verify(ref, user: user, role: user.flatMap { roles[team.id]?[$0.id] }, team: team.key)
    }

    /// Refuses an external id another task of the team already uses.
    func checkExternalID(_ externalID: String?, of key: TaskKey?, in team: Team) throws {
        guard let externalID, let holder = taskKeysByExternalID[team.id]?[externalID], holder != key else { return }
        throw TaskError.externalIDTaken(externalID, in: team.key, by: holder)
    }

    /// Stores a new task with the team's next number and records its creation.
    mutating func insert(
        _ draft: TaskDraft, assigneeID: UserID?, in team: Team, by actor: UserID, at time: Date, kind: TaskHistoryEntry.Kind
    ) throws -> TaskItem {
        try checkExternalID(draft.externalID, of: nil, in: team)
        let number = (lastTaskNumber[team.id] ?? 0) + 1
        lastTaskNumber[team.id] = number
        let task = TaskItem(
            id: nextID(), teamID: team.id, key: TaskKey(team: team.key, number: number), draft: draft, assigneeID: assigneeID, by: actor, at: time)
        save(task, replacing: nil, kind: kind)
        return task
    }

    /// Writes `task` over `old` (nil for a new task), keeping the external id index and history.
    mutating func save(_ task: TaskItem, replacing old: TaskItem?, kind: TaskHistoryEntry.Kind) {
        if let externalID = old?.externalID { taskKeysByExternalID[task.teamID]?[externalID] = nil }
        if let externalID = task.externalID { taskKeysByExternalID[task.teamID, default: [:]][externalID] = task.key }
        tasks[task.key] = task
        history[task.teamID, default: [:]][task.key.number, default: []].append(TaskHistoryEntry(from: old, to: task, kind: kind))
    }

    /// Removes a task and its index entry; its history stays.
    mutating func remove(_ task: TaskItem) {
        if let externalID = task.externalID { taskKeysByExternalID[task.teamID]?[externalID] = nil }
        tasks[task.key] = nil
    }

    /// Logs the changes one mutation made in `team` under the next sequences (a bulk import
    /// as one entry) and rings the team's doorbells.
    mutating func log(_ changes: [(Int64) -> TaskChange], in team: TeamID) {
        guard !changes.isEmpty else { return }
        var last = lastChange[team] ?? 0
        var log = changeLog[team] ?? []
        if changes.count > TaskChange.bulkImportThreshold {
            last += 1
            log.append(.resync(through: last))
        } else {
            for change in changes {
                last += 1
                log.append(.change(change(last)))
            }
        }
        if log.count > changeLogLimit { log.removeFirst(log.count - changeLogLimit) }
        changeLog[team] = log
        lastChange[team] = last
        ring(team)
    }

    /// Tells the team's watchers to read again (a change, or a change of who may read).
    func ring(_ team: TeamID) {
        for doorbell in (doorbells[team] ?? [:]).values { doorbell.yield() }
    }

    /// The team's logged events after `position`, at most `limit`, once `access` passes.
    func changeLog(after position: Int64, limit: Int, access: AccessRequirement, team key: TeamKey) throws -> ChangeLogRead {
        let gate = try gate(access, team: key, subject: "team \(key)")
        let log = changeLog[gate.team.id] ?? []
        let start = log.firstIndex { $0.sequence > position } ?? log.endIndex
        return ChangeLogRead(events: Array(log[start...].prefix(limit)), lastSequence: lastChange[gate.team.id] ?? 0, teamID: gate.team.id)
    }

    /// The team's tasks in no particular order.
    func tasks(of team: TeamID) -> [TaskItem] {
        tasks.values.filter { $0.teamID == team }
    }
}
