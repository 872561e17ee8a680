import Synchronization

/// Unique uppercase name suffixes (at most 9 characters) for users and teams of one fixture:
/// a random prefix shared by the fixture and a counter.
public final class NameSource: Sendable {
    /// Five characters each drawn alike from A–Z and 0–9 (36^5 prefixes). The first five digits
    /// of a random UInt32 in base 36 were far fewer: every 7-digit value starts with 1, so about
    /// half the draws shared 1.6 million prefixes, and two fixtures of one run once collided
    /// ("user owner.16gwr1@example.com already exists").
    private let prefix = String((0..<5).map { _ in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".randomElement()! })
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
