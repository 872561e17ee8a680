import TaskCore
import Testing

extension TaskStoreContract {
    static let permissionChecks: [ContractCheck] = [
        ContractCheck("every role, outsider and disabled user gets exactly its due for every operation, and a refusal writes nothing") { f in
            for operation in GuardedOperation.all {
                for (user, role) in f.cast {
                    let team = try await f.makeTeam()
                    let act = try await operation.prepare(f, team)
                    let tasksBefore = try await f.allTasks(in: team)
                    let membersBefore = try await f.service.members(of: team, as: f.owner)
                    let expected = operation.expectedOutcome(role: role, disabled: user == f.disabled)
                    let outcome = await Outcome.of { try await act(user) }
                    #expect(outcome == expected, "\(operation.name) as \(user == f.disabled ? "disabled user" : role?.rawValue ?? "outsider")")
                    if outcome != .ok {
                        #expect(try await f.allTasks(in: team) == tasksBefore, "\(operation.name) refused but tasks changed")
                        #expect(try await f.service.members(of: team, as: f.owner) == membersBefore, "\(operation.name) refused but members changed")
                    }
                }
            }
        },
        ContractCheck("an outsider cannot tell an existing task from a missing one") { f in
            let task = try await f.makeTask()
            let missing = TaskKey(team: f.team, number: task.key.number + 100)
            let existing = await errorText { _ = try await f.service.task(task.key, as: f.outsider) }
            let absent = await errorText { _ = try await f.service.task(missing, as: f.outsider) }
            #expect(existing == "task \(task.key) not found")
            #expect(absent == "task \(missing) not found")
            let unknownTeam = try TeamKey("Q" + f.uniqueSuffix())
            #expect(await errorText { _ = try await f.service.listTasks(in: unknownTeam, as: f.outsider) } == "team \(unknownTeam) not found")
            #expect(await errorText { _ = try await f.service.listTasks(in: f.team, as: f.outsider) } == "team \(f.team) not found")
        },
        ContractCheck("an unknown acting user is not found and a disabled one is refused everything, even team creation") { f in
            let stranger = UserRef.email("nobody.\(f.uniqueSuffix().lowercased())@example.com")
            #expect(await Outcome.of { _ = try await f.service.listTasks(in: f.team, as: stranger) } == .notFound)
            #expect(await Outcome.of { _ = try await f.service.createTeam(key: "D" + f.uniqueSuffix(), name: "D", as: f.disabled) } == .denied)
            #expect(await Outcome.of { _ = try await f.service.teams(as: f.disabled) } == .denied)
            _ = try await f.service.setUserDisabled(f.disabled, false, as: f.provisioner)
            #expect(await Outcome.of { _ = try await f.service.listTasks(in: f.team, as: f.disabled) } == .ok)
        },
    ]

    /// The description of the `TaskError` `body` throws, or "no error".
    static func errorText(_ body: () async throws -> Void) async -> String {
        do {
            try await body()
            return "no error"
        } catch {
            return String(describing: error)
        }
    }
}
