import Synchronization

/// A value made on its first use and kept: `make` runs once, and callers that come while it
/// runs wait for its value rather than making their own.
final class MadeOnce<Value: Sendable>: Sendable {
    private let make: @Sendable () -> Value
    private let made = Mutex<Value?>(nil)

    /// A value `make` makes when it is first asked for.
    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    /// The value, made now if this is the first time.
    var value: Value {
        made.withLock { made in
            if let made { return made }
            let value = make()
            made = value
            return value
        }
    }
}
