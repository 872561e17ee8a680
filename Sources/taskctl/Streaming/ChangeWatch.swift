import CommandLineToolkit
import Foundation
import TaskCore
import TaskbaseWire

/// `watch`: prints each change of a team as it happens, until the task is cancelled (Ctrl-C),
/// which ends it normally, so the program exits 0; ending the iteration ends the subscription.
struct ChangeWatch: Sendable {
    /// The service to subscribe through.
    var service: TaskService
    /// The team to watch.
    var team: TeamKey
    /// Who watches (any member, viewers included).
    var actor: UserRef
    /// JSON Lines rather than text lines.
    var json: Bool
    /// Resume after this sequence of the team's log (nil: from now on).
    var after: Int64? = nil

    /// Subscribes, calls `ready` once changes are being received, then calls `write` with each
    /// change's line. Returns when cancelled; a feed that ends on its own is a failure (exit 3);
    /// a watcher who may no longer read the team is refused (`permissionDenied`, exit 4).
    func run(ready: () throws -> Void, write: (String) throws -> Void) async throws {
        var directory = try await UserDirectory.of(team, service: service, as: actor)
        let stream = try await service.changes(in: team, after: after, as: actor)
        try ready()
        let encoder = ChangeOutput.makeLineEncoder()
        do {
            for try await event in stream {
                guard case .change(let change) = event else {
                    let resync = ResyncDocument(sequence: event.sequence)
                    try write(json ? try ChangeOutput.jsonLine(resync, encoder: encoder) : ChangeOutput.line(resync))
                    continue
                }
                let document = try await ChangeDocument.describing(change, users: &directory, service: service, as: actor)
                try write(json ? try ChangeOutput.jsonLine(document, encoder: encoder) : ChangeOutput.line(document))
            }
        } catch  where Task.isCancelled {
            return
        }
        if Task.isCancelled { return }
        throw CommandFailure("the change feed of team \(team) ended: the connection to the database closed", exitCode: .cannotConnect)
    }

}
