import CommandLineToolkit
import Foundation
import PGStore
import Synchronization

/// Names the session a command waits for. While the command runs longer than a moment, a
/// connection of its own asks the server every half second whether one of this process's
/// sessions (found by their `application_name`, which works behind PgBouncer too) waits for a
/// lock, and who holds it: said once on stderr while waiting, and in the error when the
/// lock timeout gives up — after that the server no longer knows who it was.
public enum LockWaitWatch {
    /// How long a command runs before anyone looks for a blocker.
    static let firstLook: Duration = .seconds(1)
    /// How often to look after that.
    static let interval: Duration = .milliseconds(500)

    /// Runs `body`; a lock timeout it throws becomes a conflict (exit 5) naming the blocker.
    public static func run(_ body: () async throws -> Void) async throws {
        let seen = Mutex<LockBlocker?>(nil)
        let watcher = Task {
            try await Task.sleep(for: firstLook)
            guard let target = ServiceConnection.opened else { return }
            var config = target.config
            config["application_name"] = target.application + " (lock watch)"
            config.statementCacheSize = 0
            let connection = try await PGConnection.connect(config)
            var told = false
            while !Task.isCancelled {
                if let blocker = try? await LockBlocker.find(blockingApplication: target.application, on: connection) {
                    seen.withLock { $0 = blocker }
                    if !told {
                        ErrorPrinter.forThisProgram.note("waiting for a lock held by \(blocker)")
                        told = true
                    }
                }
                try? await Task.sleep(for: interval)
            }
            await connection.close()
        }
        // The watcher's connection is closed before the program goes on to exit.
        func stopWatching() async {
            watcher.cancel()
            _ = await watcher.result
        }
        do {
            try await body()
            await stopWatching()
        } catch let error as PGError where error.code == .lockNotAvailable {
            await stopWatching()
            let blocker = seen.withLock { $0 }
            throw CommandFailure(
                "gave up waiting for a lock after lock_timeout (\(ServiceConnection.opened.map { $0.limits.lockTimeout.displayText } ?? "?"))"
                    + (blocker.map { ", held by \($0)" } ?? "")
                    + "; nothing was changed; try again, or allow longer with --lock-timeout or TASKBASE_LOCK_TIMEOUT",
                exitCode: .conflict)
        } catch {
            await stopWatching()
            throw error
        }
    }
}
