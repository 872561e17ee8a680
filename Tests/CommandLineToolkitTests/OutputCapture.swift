import Foundation

/// Collects text written by a runner, from whichever task writes it.
final class OutputCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var collected = ""

    var text: String {
        lock.withLock { collected }
    }

    var writer: @Sendable (String) -> Void {
        { text in self.lock.withLock { self.collected += text } }
    }
}
