import Foundation
import TaskCore
import TaskStoreContract
import Testing

/// The cast and stage for one session check: a session for every role of a fresh team, an
/// outsider and a disabled owner, each acting as themselves only.
public struct SessionFixture: Sendable {
    /// One person of the cast: who they are, their role in `team`, and their own session.
    public struct Person: Sendable {
        /// The user.
        public let user: User
        /// Their role in every `makeTeam` team (nil: outsider).
        public let role: Role?
        /// Their session.
        public let session: any TaskSession
        /// How other calls name them.
        public var ref: UserRef { .id(user.id) }
        /// How an admin who shares no team with them adds them: by the address they know (an
        /// id names only people one already sees, `UserVisibility`).
        public var address: UserRef { .email(user.email) }
    }

    /// The operator's service behind the sessions, for provisioning and for comparing answers.
    public let service: TaskService
    /// The owner of every team `makeTeam` builds.
    public let owner: Person
    /// Admin in every such team.
    public let admin: Person
    /// Member in every such team.
    public let member: Person
    /// Viewer in every such team.
    public let viewer: Person
    /// In no team.
    public let outsider: Person
    /// A second owner of every such team, disabled after their session was opened.
    public let disabled: Person
    /// A team with the whole cast.
    public let team: TeamKey
    /// Where the sessions come from.
    public let host: SessionHost
    private let names: NameSource

    static func make(_ host: SessionHost) async throws -> SessionFixture {
        let names = NameSource()
        var cast: [Person] = []
        for (name, role) in [
            ("owner", Role.owner), ("admin", .admin), ("member", .member), ("viewer", .viewer), ("outsider", nil), ("disabled", .owner),
        ] {
            let user = try await host.service.createUser(email: "\(name).\(names.next().lowercased())@example.com", displayName: name.capitalized)
            cast.append(Person(user: user, role: role, session: try await host.open(user)))
        }
        let fixture = SessionFixture(host: host, cast: cast, team: nil, names: names)
        let team = try await fixture.makeTeam()
        _ = try await host.service.setUserDisabled(.id(cast[5].user.id), true)
        return SessionFixture(host: host, cast: cast, team: team, names: names)
    }

    private init(host: SessionHost, cast: [Person], team: TeamKey?, names: NameSource) {
        self.host = host
        service = host.service
        (owner, admin, member, viewer, outsider, disabled) = (cast[0], cast[1], cast[2], cast[3], cast[4], cast[5])
        self.team = team ?? (try! TeamKey("UNSET"))
        self.names = names
    }

    /// How the disabled user is refused by this host.
    public var disabledRefusal: Outcome { host.disabledRefusal }

    /// Everyone, each with the role they hold in a `makeTeam` team.
    public var cast: [Person] { [owner, admin, member, viewer, outsider, disabled] }

    /// A name unique to this fixture.
    public func uniqueSuffix() -> String { names.next() }

    /// A new team made by the owner's session, with admin, member, viewer and the disabled
    /// user (as a second owner) added through it.
    public func makeTeam() async throws -> TeamKey {
        let team = try await owner.session.createTeam(key: "S" + names.next(), name: "Session team")
        for person in [admin, member, viewer, disabled] {
            try await owner.session.setRole(person.role!, for: person.address, in: team.key)
        }
        return team.key
    }

    /// A new enabled user in no team, with their own session.
    public func makePerson() async throws -> Person {
        let user = try await service.createUser(email: "extra.\(uniqueSuffix().lowercased())@example.com", displayName: "Extra")
        return Person(user: user, role: nil, session: try await host.open(user))
    }

    /// A task the owner creates in `team` (the fixture's by default).
    @discardableResult
    public func makeTask(_ title: String = "A task", in team: TeamKey? = nil, _ fields: TaskDraftFields = TaskDraftFields()) async throws -> TaskItem
    {
        try await owner.session.createTask(in: team ?? self.team, try fields.draft(title: title))
    }
}
