import CommandLineToolkit
import TaskCore
import TaskbaseCommandLine
import Testing
@testable import taskctl

@Suite("Errors become one line and an exit code")
struct ExitCodeMappingTests {
    @Test(
        "each refusal of the service has its code and keeps its message",
        arguments: [
            (TaskError.notFound(what: "task CORE-9"), ExitCode.failure),
            (TaskError.permissionDenied(what: "change tasks", why: "a viewer"), .permissionDenied),
            (TaskError.conflict(what: "task CORE-1", currentVersion: 4), .conflict),
            (TaskError.alreadyExists(what: "team CORE"), .conflict),
            (TaskError.validation(field: "title", reason: "empty"), .inputRejected),
        ])
    func taskErrors(error: TaskError, code: ExitCode) {
        let failure = ServiceExitCodes.failure(for: error) as? CommandFailure
        #expect(failure == CommandFailure(error.description, exitCode: code))
    }

    @Test("usage errors, cancellation and failures with a code pass through")
    func passThrough() {
        #expect(ServiceExitCodes.failure(for: UsageError("bad")) as? UsageError == UsageError("bad"))
        #expect(ServiceExitCodes.failure(for: CancellationError()) is CancellationError)
        #expect(ServiceExitCodes.failure(for: OutputError(code: 32)) as? CommandFailure == CommandFailure(OutputError(code: 32).description))
    }

    @Test("a multi-line message becomes one line")
    func oneLine() {
        #expect(ServiceExitCodes.oneLine("could not connect:\n\tIs the server running?") == "could not connect: Is the server running?")
    }
}
