import Foundation
import TaskCore

/// The cast and stage for one contract check: a service over the store under test with a
/// ticking clock on 2026-03-10, and users for every role plus an outsider and a disabled
/// user, named uniquely so checks never collide in a shared database.
public struct ContractFixture: Sendable {
    /// "Today" for every check.
    public static let today = CalendarDate(year: 2026, month: 3, day: 10)!
    /// The clock's first reading: noon on `today`, UTC.
    public static let start = Date(timeIntervalSince1970: 1_773_144_000)  // 2026-03-10T12:00:00Z

    /// The service under test.
    public let service: TaskService
    /// The store under test, for store-specific checks beside the contract.
    public let store: any TaskStore
    /// Owns every team `makeTeam` builds.
    public let owner: UserRef
    /// Admin in every such team.
    public let admin: UserRef
    /// Member in every such team.
    public let member: UserRef
    /// Viewer in every such team.
    public let viewer: UserRef
    /// In no team.
    public let outsider: UserRef
    /// Owner in every such team, but disabled.
    public let disabled: UserRef
    /// A team with the whole cast, ready for the check.
    public let team: TeamKey
    private let names: NameSource

    /// Provisions the cast's users: nil is the database's administrator (the test's own login).
    public let provisioner: UserRef?

    /// Builds the cast and one team in `store`, provisioning users as `provisioner` (an
    /// operator; nil: the store's login's own rights).
    public static func make(store: any TaskStore, provisioner: UserRef? = nil) async throws -> ContractFixture {
        let service = TaskService(store: store, clock: TickingClock(start: start).clock)
        let names = NameSource()
        var cast: [UserRef] = []
        for role in ["owner", "admin", "member", "viewer", "outsider", "disabled"] {
            let user = try await service.createUser(
                email: "\(role).\(names.next().lowercased())@example.com", displayName: role.capitalized, as: provisioner)
            cast.append(.email(user.email))
        }
        let team = try await makeTeam(service: service, names: names, cast: cast)
        _ = try await service.setUserDisabled(cast[5], true, as: provisioner)
        return ContractFixture(service: service, store: store, provisioner: provisioner, cast: cast, team: team, names: names)
    }

    private init(service: TaskService, store: any TaskStore, provisioner: UserRef?, cast: [UserRef], team: TeamKey, names: NameSource) {
        self.service = service
        self.store = store
        self.provisioner = provisioner
        (owner, admin, member, viewer, outsider, disabled) = (cast[0], cast[1], cast[2], cast[3], cast[4], cast[5])
        self.team = team
        self.names = names
    }

    private static func makeTeam(service: TaskService, names: NameSource, cast: [UserRef]) async throws -> TeamKey {
        let team = try await service.createTeam(key: "T" + names.next(), name: "Contract team", as: cast[0])
        for (user, role) in zip(cast[1...3] + [cast[5]], [Role.admin, .member, .viewer, .owner]) {
            try await service.setRole(role, for: user, in: team.key, as: cast[0])
        }
        return team.key
    }

    /// Every user of the cast with the role they hold in a `makeTeam` team (nil: outsider).
    public var cast: [(user: UserRef, role: Role?)] {
        [(owner, .owner), (admin, .admin), (member, .member), (viewer, .viewer), (outsider, nil), (disabled, .owner)]
    }

    /// A name unique to this fixture, for extra users and teams.
    public func uniqueSuffix() -> String { names.next() }

    /// A new team owned by `owner`, with admin, member, viewer, and the disabled user as a second owner.
    public func makeTeam() async throws -> TeamKey {
        try await Self.makeTeam(service: service, names: names, cast: [owner, admin, member, viewer, outsider, disabled])
    }

    /// A new enabled user in no team, named by email: the way an admin who shares no team with
    /// them adds them (an id names only the people one already sees, `UserVisibility`).
    public func makeUser() async throws -> UserRef {
        let user = try await service.createUser(email: "extra.\(uniqueSuffix().lowercased())@example.com", displayName: "Extra", as: provisioner)
        return .email(user.email)
    }

    /// A task created by the owner in `team` (the fixture's team by default).
    @discardableResult
    public func makeTask(_ title: String = "A task", in team: TeamKey? = nil, _ fields: TaskDraftFields = TaskDraftFields()) async throws -> TaskItem
    {
        try await service.createTask(in: team ?? self.team, try fields.draft(title: title), as: owner)
    }

    /// Every task of `team` (the fixture's team by default), in number order, as the owner sees them.
    public func allTasks(in team: TeamKey? = nil) async throws -> [TaskItem] {
        try await service.listTasks(in: team ?? self.team, TaskQuery(limit: TaskQuery.limitRange.upperBound), as: owner).tasks
    }
}
