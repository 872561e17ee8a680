import Synchronization

/// Unique uppercase name suffixes (at most 9 characters) for users and teams of one fixture:
/// a random prefix shared by the fixture and a counter.
public final class NameSource: Sendable {
    private let prefix = String(UInt32.random(in: 0...UInt32.max), radix: 36).uppercased().prefix(5)
    private let counter = Mutex(0)

    /// A source with a fresh random prefix.
    public init() {}

    /// The next unique suffix.
    public func next() -> String {
        let next = counter.withLock { value in
            value += 1
            return value
        }
        return prefix + String(next, radix: 36).uppercased()
    }
}
