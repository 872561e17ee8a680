/// Who is acting and what they want to do, handed by `TaskService` to every gated
/// repository call. The store supplies facts; `verify` (here, once) decides.
public struct AccessRequirement: Sendable, Hashable {
    /// The acting user as the caller named them.
    public var actor: UserRef
    /// What they want to do.
    public var action: TeamAction

    /// Names the actor and the action.
    public init(actor: UserRef, action: TeamAction) {
        self.actor = actor
        self.action = action
    }

    /// The least role that may act; a store folding the check into SQL compares against it.
    public var minimumRole: Role { action.minimumRole }

    /// Judges `facts` for `subject` (e.g. "task CORE-42") and returns the actor. Unknown
    /// actor: not found; disabled: denied; outsider or missing team: `subject` not found,
    /// so outsiders learn nothing; too small a role: denied, naming the role needed. The
    /// subject is made only for an error: reads that pass (most of them) never spell it.
    @discardableResult
    public func verify(_ facts: AccessFacts, subject: @autoclosure () -> String) throws -> User {
        let actor = try Self.enabledActor(facts.actor, named: self.actor)
        guard let role = facts.role else { throw TaskError.notFound(what: subject()) }
        guard role >= minimumRole else {
            throw TaskError.permissionDenied(
                what: action.phrase(for: subject()),
                why: "\(actor.email) is \(role.withArticle); it takes \(minimumRole.withArticle) or above")
        }
        return actor
    }

    /// The actor when they exist and are enabled: the check for actions outside any team.
    public static func enabledActor(_ user: User?, named ref: UserRef) throws -> User {
        guard let user else { throw TaskError.unknownUser(ref) }
        guard !user.isDisabled else {
            throw TaskError.permissionDenied(
                what: "do anything", why: "\(user.email.isEmpty ? ref.description : user.email) is disabled; an operator can enable the account again"
            )
        }
        return user
    }
}
