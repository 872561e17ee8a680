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
            #expect(await Outcome.of { try await f.service.removeMember(f.owner, from: f.team, as: f.owner) } == .invalid(field: "role"))
            #expect(await Outcome.of { _ = try await f.service.setUserDisabled(f.owner, true, as: f.provisioner) } == .invalid(field: "role"))
            #expect(try await f.service.user(f.owner, as: f.owner).isDisabled == false)
            #expect(try await f.service.members(of: f.team, as: f.owner).first { $0.role == .owner && !$0.user.isDisabled } != nil)
            try await f.service.setRole(.owner, for: f.admin, in: f.team, as: f.owner)
            try await f.service.setRole(.admin, for: f.owner, in: f.team, as: f.owner)
            #expect(await Outcome.of { _ = try await f.service.setUserDisabled(f.admin, true, as: f.provisioner) } == .invalid(field: "role"))
        },
        ContractCheck("users are visible only as the service needs: oneself, team mates, and everyone for admins and operators") { f in
            let stranger = try await f.makeUser()
            #expect(await Outcome.of { _ = try await f.service.user(stranger, as: f.member) } == .notFound)
            #expect(await Outcome.of { _ = try await f.service.user(stranger, as: f.viewer) } == .notFound)
            #expect(await Outcome.of { _ = try await f.service.user(f.member, as: f.outsider) } == .notFound)
            #expect(try await f.service.user(f.viewer, as: f.member).id == (try await f.service.user(f.viewer, as: f.viewer)).id)
            #expect(await Outcome.of { _ = try await f.service.user(stranger, as: f.admin) } == .ok)
            #expect(await Outcome.of { _ = try await f.service.user(f.outsider, as: f.outsider) } == .ok)
        },
    ]
}
