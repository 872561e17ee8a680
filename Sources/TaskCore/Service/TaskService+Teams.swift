/// Teams and memberships: members read, admins manage members, owners manage the team and owners.
extension TaskService {
    /// Creates team `key` (uppercased) with `owner` as its first owner, who must be enabled.
    public func createTeam(key: String, name: String, as owner: UserRef) async throws -> Team {
        let key = try TeamKey(key, field: "key")
        let name = try UserFields.name(name)
        let actor = try await enabledActor(owner)
        return try await store.createTeam(key: key, name: name, owner: actor.id, at: clock.now())
    }

    /// The teams the actor belongs to, with their role in each.
    public func teams(as actor: UserRef) async throws -> [TeamMembership] {
        try await store.teams(of: try await enabledActor(actor).id)
    }

    /// One team and the actor's role in it.
    public func team(_ key: TeamKey, as actor: UserRef) async throws -> TeamMembership {
        let access = try await access(key, .readTasks, as: actor)
        return TeamMembership(team: access.team, role: access.role)
    }

    /// Renames a team (owners).
    public func renameTeam(_ key: TeamKey, to name: String, as actor: UserRef) async throws -> Team {
        let name = try UserFields.name(name)
        let access = try await access(key, .manageTeam, as: actor)
        return try await store.renameTeam(access.team.id, to: name, actor: access.actor.id)
    }

    /// Deletes a team with all its tasks (owners).
    public func deleteTeam(_ key: TeamKey, as actor: UserRef) async throws {
        let access = try await access(key, .manageTeam, as: actor)
        try await store.deleteTeam(access.team.id, actor: access.actor.id)
    }

    /// The team's members, by email (anyone in the team).
    public func members(of key: TeamKey, as actor: UserRef) async throws -> [Member] {
        let access = try await access(key, .readTasks, as: actor)
        return try await store.members(of: access.team.id, actor: access.actor.id)
    }

    /// Adds `user` to the team with `role`, or changes their role (admins; owners for anything
    /// touching the owner role). The last enabled owner cannot step down (`OwnerRule`, judged by the store).
    @discardableResult
    public func setRole(_ role: Role, for user: UserRef, in key: TeamKey, as actor: UserRef) async throws -> Member {
        try await putMember(user, role: role, in: key, as: actor).member
    }

    /// `setRole`, also saying whether `user` was added (no member when their membership was
    /// read, just before the change): an HTTP `PUT` that makes a member answers 201, one that
    /// changes a role 200 (RFC 9110 §9.3.4). With `condition` (an HTTP precondition), only
    /// when it holds for the membership as it is, judged after every permission check and again
    /// by the store as it changes it: `MembershipConditionFailed` otherwise.
    public func putMember(
        _ user: UserRef, role: Role, in key: TeamKey, as actor: UserRef, condition: MembershipCondition? = nil
    ) async throws -> (member: Member, added: Bool) {
        let change = try await changeMembership(of: user, to: role, in: key, as: actor, condition: condition)
        return (Member(user: change.user, role: role), !change.wasMember)
    }

    /// Removes `user` from the team (admins; owners to remove an owner; anyone themself). The last
    /// enabled owner cannot leave. Their tasks in the team are unassigned, and counted. With
    /// `condition`, only when it holds, as for `putMember`.
    @discardableResult
    public func removeMember(
        _ user: UserRef, from key: TeamKey, as actor: UserRef, condition: MembershipCondition? = nil
    ) async throws -> MemberRemoval {
        let removal = try await changeMembership(of: user, to: nil, in: key, as: actor, condition: condition)
        return MemberRemoval(team: key, user: removal.user, unassignedTasks: removal.unassignedTasks)
    }

    /// The user a membership change names: by id someone the actor sees (a team mate); to be
    /// added by email, anyone an admin or owner knows the address of (`UserVisibility`,
    /// `toAdd`). One to remove is a member, whom the actor sees: anyone else is "not found"
    /// alike, with an account or without.
    private func memberToChange(_ ref: UserRef, adding: Bool, as actor: UserRef) async throws -> User {
        guard adding, case .email(let email) = ref else { return try await existingUser(ref, as: actor) }
        guard let user = try await store.user(toAdd: email, as: actor) else { throw TaskError.unknownUser(ref) }
        return user
    }

    /// The gate comes first, so that whoever may not manage members learns nothing of the user;
    /// except that anyone may take themself out of a team (the last enabled owner cannot). The
    /// user changed, how many of their tasks a removal unassigned, and whether they were a
    /// member before.
    private func changeMembership(
        of user: UserRef, to role: Role?, in key: TeamKey, as actor: UserRef, condition: MembershipCondition?
    ) async throws -> (user: User, unassignedTasks: Int, wasMember: Bool) {
        let access: TeamAccess
        do {
            access = try await self.access(key, .manageMembers, as: actor)
        } catch let refusal as TaskError where role == nil {
            guard case .permissionDenied = refusal else { throw refusal }
            let member = try await self.access(key, .readTasks, as: actor)
            guard user.names(member.actor) else { throw refusal }
            access = member
        }
        // Granting the owner role is judged before the user is looked up: an admin learns
        // nothing of the address from it (403 whoever it names).
        let ownersOnly = MembershipRule.ownersOnly(team: "\(key)", actor: access.actor.email, role: access.role)
        let mayTouchOwners = access.role >= TeamAction.manageTeam.minimumRole
        if role == .owner, !mayTouchOwners { throw ownersOnly }
        let target = try await memberToChange(user, adding: role != nil, as: actor)
        let members = try await store.members(of: access.team.id, actor: access.actor.id)
        let membership = members.first { $0.user.id == target.id }
        let current = membership?.role
        // A false condition is 412 before "no such member" (RFC 9110 §13.2.2: If-Match: * on
        // no member is false), but after every refusal that hides or guards the team.
        if current == .owner, !mayTouchOwners { throw ownersOnly }
        if let condition, !condition.holds(membership) { throw MembershipConditionFailed(current: membership) }
        if role == nil, current == nil { throw TaskError.notFound(what: "member \(target.email) of team \(key)") }
        let unassigned = try await store.setRole(
            role, of: target, in: access.team.id, actor: access.actor.id, at: clock.now(), condition: condition)
        return (target, unassigned, current != nil)
    }
}
