import Foundation

/// A long-running `taskctl` (such as `watch`) whose output the test reads while it runs.
final class BackgroundTaskctl: @unchecked Sendable {
    private let process: Process
    private let output = Pipe()
    private let errors = Pipe()
    /// Everything read from stdout so far (touched only by the test's own thread calls).
    private(set) var standardOutput = ""
    /// Everything read from stderr so far.
    private(set) var standardError = ""

    /// Starts `taskctl arguments` as `actor`.
    init(_ arguments: [String], as actor: String) async throws {
        process = TaskctlProcess.process(["--as", actor] + arguments, environment: try await TaskctlProcess.environment())
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Waits until stdout (or stderr) contains `text`, for at most `timeout` seconds.
    func waitFor(_ text: String, onStandardError: Bool = false, timeout: Double = 15) async throws {
        let handle = (onStandardError ? errors : output).fileHandleForReading
        let deadline = Date().addingTimeInterval(timeout)
        while !(onStandardError ? standardError : standardOutput).contains(text) {
            guard Date() < deadline else {
                throw TaskctlProcess.Unexpected(description: "no '\(text)' within \(timeout)s; stdout: \(standardOutput) stderr: \(standardError)")
            }
            let chunk = try await Self.read(handle, waitingAtMost: deadline.timeIntervalSinceNow)
            if onStandardError { standardError += chunk } else { standardOutput += chunk }
        }
    }

    /// Sends Ctrl-C (SIGINT) and waits for the exit; returns the exit code.
    func interrupt() async -> Int32 {
        process.interrupt()
        return await waitForExit()
    }

    /// Waits for the process to exit on its own and returns its exit code, reading what it
    /// wrote meanwhile.
    func waitForExit() async -> Int32 {
        let process = process
        let status = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
        standardOutput += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        standardError += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return status
    }

    /// Stops the process if it still runs (a failed test must not leave it behind).
    func terminate() {
        if process.isRunning { process.terminate() }
    }

    /// What `handle` has to read, waiting at most `seconds` for something (empty after that).
    private static func read(_ handle: FileHandle, waitingAtMost seconds: Double) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, Int32(max(0, min(seconds, 1)) * 1000))
                guard ready > 0 else { return continuation.resume(returning: "") }
                let data = handle.availableData
                if data.isEmpty {
                    return continuation.resume(throwing: TaskctlProcess.Unexpected(description: "the process closed its output"))
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
    }
}
