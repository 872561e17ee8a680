import Foundation

/// A lock around a value, for the URLSession callbacks (which are not Swift tasks); Foundation's
/// `NSLock` keeps it available on every platform the client supports.
final class MutexBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
