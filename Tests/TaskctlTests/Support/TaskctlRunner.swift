import CommandLineToolkit
import Foundation
import TaskCore
import TaskStoreMemory
@testable import taskctl

/// How a test runs `taskctl ARGUMENTS` as an acting user: the built program as a child process
/// against the test database, or the same command tree in this process over a `TaskService`
/// it is given (`TaskctlEnvironment`), its output captured.
struct TaskctlRunner: Sendable {
    /// Runs the arguments, as the actor when one is given.
    let run: @Sendable (_ arguments: [String], _ actor: String?) async throws -> TaskctlResult

    /// The built `taskctl`, a child process against the test database.
    static let process = TaskctlRunner { arguments, actor in try await TaskctlProcess.run(arguments, as: actor) }

    /// The command tree in process, over `service` (a fresh memory store by default), with the
    /// service's clock as the machine's day. Nothing is read from this process's environment.
    static func inProcess(_ service: TaskService = TaskService(store: MemoryTaskStore())) -> TaskctlRunner {
        TaskctlRunner { arguments, actor in
            let output = Captured(), errors = Captured()
            let environment = TaskctlEnvironment(
                service: { _ in service }, clock: service.clock, standardOutput: { output.append($0) },
                standardError: { errors.append(Array($0.utf8)) })
            let runner = CommandRunner(
                root: Taskctl.root, environment: [:], standardOutput: { output.append(Array($0.utf8)) },
                standardError: { errors.append(Array($0.utf8)) })
            let code = await TaskctlEnvironment.$current.withValue(environment) {
                await runner.run((actor.map { ["--as", $0] } ?? []) + arguments)
            }
            return TaskctlResult(exitCode: code.rawValue, standardOutput: output.text, standardError: errors.text)
        }
    }

    /// Bytes written from whichever task writes them.
    private final class Captured: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []

        func append(_ more: [UInt8]) { lock.withLock { bytes += more } }
        var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
    }
}
