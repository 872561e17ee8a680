import TaskCore
import Testing

extension TaskStoreContract {
    static let operatorChecks: [ContractCheck] = [
        ContractCheck("provisioning by anyone but an enabled operator is refused and changes nothing") { f in
            let newcomer = "new.\(f.uniqueSuffix().lowercased())@example.com"
            for actor in [f.owner, f.admin, f.member, f.viewer, f.outsider, f.disabled] {
                #expect(await Outcome.of { _ = try await f.service.createUser(email: newcomer, displayName: "New", as: actor) } == .denied)
                #expect(await Outcome.of { _ = try await f.service.setUserDisabled(f.owner, true, as: actor) } == .denied)
                #expect(await Outcome.of { _ = try await f.service.users(as: actor) } == .denied)
                #expect(await Outcome.of { try await f.service.requireOperator(actor) } == .denied)
            }
            #expect(await Outcome.of { _ = try await f.service.setUserDisabled(f.disabled, false, as: f.disabled) } == .denied)
            #expect(await Outcome.of { _ = try await f.service.user(.email(newcomer), as: f.provisioner) } == .notFound)
            let owner = try await f.service.user(f.owner, as: f.owner), disabled = try await f.service.user(f.disabled, as: f.provisioner)
            #expect(!owner.isDisabled && disabled.isDisabled)
        },
        ContractCheck("an operator provisions users and other operators; a disabled operator is refused") { f in
            let ops = UserRef.email(
                try await f.service.createUser(
                    email: "ops.\(f.uniqueSuffix().lowercased())@example.com", displayName: "Ops", isOperator: true, as: f.provisioner
                ).email)
            #expect(try await f.service.requireOperator(ops).isOperator)
            let made = try await f.service.createUser(
                email: "made.\(f.uniqueSuffix().lowercased())@example.com", displayName: "Made", isOperator: true, as: ops)
            #expect(made.isOperator)
            #expect(try await f.service.users(as: ops).contains { $0.id == made.id })
            #expect(try await f.service.setUserDisabled(.id(made.id), true, as: ops).isDisabled)
            #expect(await Outcome.of { _ = try await f.service.setUserDisabled(.id(made.id), false, as: .id(made.id)) } == .denied)
            #expect(try await f.service.setUserDisabled(.id(made.id), false, as: ops).isDisabled == false)
        },
        ContractCheck("an operator is nobody inside a team: provisioning grants no team access") { f in
            let ops = UserRef.email(
                try await f.service.createUser(
                    email: "ops.\(f.uniqueSuffix().lowercased())@example.com", displayName: "Ops", isOperator: true, as: f.provisioner
                ).email)
            #expect(await Outcome.of { _ = try await f.service.listTasks(in: f.team, as: ops) } == .notFound)
        },
        ContractCheck("a team always keeps an enabled owner: the last one can neither step down, leave nor be disabled") { f in
            // The fixture's second owner is disabled: the owner is the last enabled one.
            #expect(await Outcome.of { try await f.service.setRole(.admin, for: f.owner, in: f.team, as: f.owner) } == .invalid(field: "role"))
            #expect(await Outcome.of { try await f.service.removeMember(f.owner, from: f.team, as: f.owner) } == .invalid(field: "user"))
            #expect(await Outcome.of { _ = try await f.service.setUserDisabled(f.owner, true, as: f.provisioner) } == .invalid(field: "role"))
            #expect(try await f.service.user(f.owner, as: f.owner).isDisabled == false)
            #expect(try await f.service.members(of: f.team, as: f.owner).first { $0.role == .owner && !$0.user.isDisabled } != nil)
            try await f.service.setRole(.owner, for: f.admin, in: f.team, as: f.owner)
            try await f.service.setRole(.admin, for: f.owner, in: f.team, as: f.owner)
            #expect(await Outcome.of { _ = try await f.service.setUserDisabled(f.admin, true, as: f.provisioner) } == .invalid(field: "role"))
        },
        ContractCheck("users are visible only as the service needs: oneself, team mates, and everyone for operators") { f in
            let stranger = try await f.makeUser()
            let strangerID = try await f.service.user(stranger, as: f.provisioner).id
            #expect(await Outcome.of { _ = try await f.service.user(stranger, as: f.member) } == .notFound)
            #expect(await Outcome.of { _ = try await f.service.user(stranger, as: f.viewer) } == .notFound)
            #expect(await Outcome.of { _ = try await f.service.user(f.member, as: f.outsider) } == .notFound)
            #expect(try await f.service.user(f.viewer, as: f.member).id == (try await f.service.user(f.viewer, as: f.viewer)).id)
            #expect(await Outcome.of { _ = try await f.service.user(f.outsider, as: f.outsider) } == .ok)
            // Admins and owners see their team mates only, by email or id: they find others
            // only to add them, by the address they know (the next check).
            for actor in [f.admin, f.owner] {
                #expect(await Outcome.of { _ = try await f.service.user(stranger, as: actor) } == .notFound)
                #expect(await Outcome.of { _ = try await f.service.user(.id(strangerID), as: actor) } == .notFound)
            }
            #expect(try await f.service.user(.id(strangerID), as: f.provisioner).id == strangerID)
        },
        ContractCheck("removing, or making owner, someone outside the team tells an admin nothing of whether their address has an account") {
            f in
            // Once removal found anyone by email ("member X of team T not found" against "user X
            // not found"), and granting the owner role looked the user up before refusing (403
            // against 404): any owner of a team of their own could test addresses.
            let stranger = try await f.service.user(try await f.makeUser(), as: f.provisioner).email
            let nobody = "nobody.\(f.uniqueSuffix().lowercased())@example.com"
            func refusal(_ address: String, _ attempt: (UserRef) async throws -> Void) async -> String {
                do {
                    try await attempt(.email(address))
                    return "(done)"
                } catch {
                    return "\(error)".replacingOccurrences(of: address, with: "ADDRESS")
                }
            }
            for attempt in [
                { (ref: UserRef) in _ = try await f.service.removeMember(ref, from: f.team, as: f.admin) },
                { (ref: UserRef) in _ = try await f.service.setRole(.owner, for: ref, in: f.team, as: f.admin) },
            ] {
                let (known, unknown) = (await refusal(stranger, attempt), await refusal(nobody, attempt))
                #expect(known == unknown && known != "(done)", "\(known) / \(unknown)")
            }
            #expect(try await f.service.members(of: f.team, as: f.owner).count == 5)
        },
        ContractCheck("anyone may own a team, yet adding by id reaches only people they share a team with: no id is walked to an address") { f in
            // The attack: create a team of one's own, then add ids one by one and read each
            // added member's email back. The outsider owns the new team and sees no one else.
            let stranger = try await f.makeUser()
            let strangerID = try await f.service.user(stranger, as: f.provisioner).id
            let team = try await f.service.createTeam(key: "W" + f.uniqueSuffix(), name: "Walker", as: f.outsider).key
            for id in [strangerID, try await f.service.user(f.member, as: f.provisioner).id] {
                #expect(await Outcome.of { _ = try await f.service.setRole(.viewer, for: .id(id), in: team, as: f.outsider) } == .notFound)
            }
            #expect(try await f.service.members(of: team, as: f.outsider).count == 1)
            // The address they know adds them, in any case; then they share the team and the id
            // names them. A member who manages no team adds nobody, and learns nothing either way.
            let typed = UserRef.email(try await f.service.user(stranger, as: f.provisioner).email.uppercased())
            let added = try await f.service.setRole(.viewer, for: typed, in: team, as: f.outsider)
            #expect(added.user.id == strangerID)
            #expect(try await f.service.user(.id(strangerID), as: f.outsider).email == added.user.email)
            #expect(await Outcome.of { try await f.service.setRole(.viewer, for: stranger, in: f.team, as: f.member) } == .denied)
        },
        ContractCheck("finding someone to add by their address tells an admin not whether they are an operator (0039)") { f in
            // Until 0039 it did, through the operator flag of the row taskbase_user_by_email
            // returned: an admin of any team learned which addresses they knew were operators'.
            let ops = try await f.service.createUser(
                email: "ops.\(f.uniqueSuffix().lowercased())@example.com", displayName: "Ops", isOperator: true, as: f.provisioner)
            for actor in [f.admin, f.owner] {
                let found = try #require(try await f.store.user(toAdd: ops.email, as: actor))
                #expect(found.id == ops.id && !found.isOperator, "\(found)")
            }
            // Whom the actor sees anyway (themself, a team mate) keeps it, as every lookup shows it.
            #expect(try await f.store.user(toAdd: ops.email, as: .id(ops.id))?.isOperator == true)
            _ = try await f.service.setRole(.viewer, for: .email(ops.email), in: f.team, as: f.admin)
            #expect(try await f.store.user(toAdd: ops.email, as: f.admin)?.isOperator == true)
        },
    ]
}
