import Foundation

/// Storage of teams and memberships. `teamAccess` is the gate; the calls taking a `TeamID`
/// come after it and carry the actor for row-level security.
public protocol TeamRepository: Sendable {
    /// Creates a team with `owner` as its first owner; a taken key is `alreadyExists`.
    func createTeam(key: TeamKey, name: String, owner: UserID, at time: Date) async throws -> Team
    /// Gathers the facts for `access` in team `key` and returns them once
    /// `access.verify(_:subject:)` (subject "team KEY") accepts them.
    func teamAccess(_ key: TeamKey, access: AccessRequirement) async throws -> TeamAccess
    /// The teams `user` belongs to, by key.
    func teams(of user: UserID) async throws -> [TeamMembership]
    /// The team's members, by email.
    func members(of team: TeamID, actor: UserID) async throws -> [Member]
    /// Adds `user` with `role`, changes their role, or removes them when `role` is nil, and
    /// refuses, in the same transaction, a change that leaves no enabled owner (`OwnerRule`).
    /// `user` is whom `user(toAdd:as:)` or a lookup as `actor` found: one who is new to the
    /// actor is added by their address. Removal unassigns each of their tasks in the team as an
    /// edit by `actor` at `time` (a new version, history, one change each, in task order): an
    /// assignee is a member. Removing one who is no member (any more) is `notFound`. Returns how
    /// many tasks the removal unassigned, counted in its transaction (0 when `role` is set).
    /// With `condition`, the change is made only when it holds for the membership as it is in
    /// that transaction (under the lock that orders membership changes); otherwise nothing is
    /// changed and `MembershipConditionFailed` says what the membership was.
    @discardableResult
    func setRole(_ role: Role?, of user: User, in team: TeamID, actor: UserID, at time: Date, condition: MembershipCondition?) async throws -> Int
    /// Renames the team.
    func renameTeam(_ team: TeamID, to name: String, actor: UserID) async throws -> Team
    /// Deletes the team with its memberships, tasks and history.
    func deleteTeam(_ team: TeamID, actor: UserID) async throws
}

extension TeamRepository {
    /// `setRole` whatever the membership is.
    @discardableResult
    public func setRole(_ role: Role?, of user: User, in team: TeamID, actor: UserID, at time: Date) async throws -> Int {
        try await setRole(role, of: user, in: team, actor: actor, at: time, condition: nil)
    }
}
