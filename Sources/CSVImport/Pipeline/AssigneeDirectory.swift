import TaskCore

/// Who may be assigned tasks in the team: its members, read once before the import, and the
/// verdicts on other addresses, asked of the service once each. `AssigneeRule` judges.
final class AssigneeDirectory {
    /// How many verdicts on non-members are remembered; beyond that they are asked again.
    private static let rememberedOutsiders = 10_000

    private let service: TaskService
    private let team: TeamKey
    private let actor: UserRef
    private let members: [String: Member]
    private var outsiders: [String: any Error] = [:]

    /// A directory of `members` of `team`, asking `service` about anyone else as `actor`, the
    /// importer, may see them (`UserVisibility`): someone they may not see is "no user …
    /// exists", as one without an account, so an import tells nobody who has one.
    init(service: TaskService, team: TeamKey, members: [Member], actor: UserRef) {
        self.service = service
        self.team = team
        self.actor = actor
        self.members = Dictionary(members.map { (UserFields.normalizedEmailKey($0.user.email), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The user `email` (validated, lowercased) names, if they may be assigned; otherwise
    /// TaskCore's validation error on `assignee`.
    func assignee(_ email: String) async throws -> UserRef {
        let ref = UserRef.email(email)
        if let member = members[UserFields.normalizedEmailKey(email)] {
            return .id(try AssigneeRule.verify(ref, user: member.user, role: member.role, team: team))
        }
        if let verdict = outsiders[email] { throw verdict }
        let user: User?
        do {
            user = try await service.user(ref, as: actor)
        } catch TaskError.notFound {
            user = nil
        }
        do {
            return .id(try AssigneeRule.verify(ref, user: user, role: nil, team: team))
        } catch {
            if outsiders.count < Self.rememberedOutsiders { outsiders[email] = error }
            throw error
        }
    }
}
