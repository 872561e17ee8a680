import Foundation
import Synchronization
import TaskCore

/// A clock that starts at a fixed instant and moves one millisecond per reading, so that
/// every change has a distinct, predictable time and "today" stays the same day.
public final class TickingClock: Sendable {
    private let current: Mutex<Date>

    /// A clock reading `start` plus one millisecond per reading.
    public init(start: Date) { current = Mutex(start) }

    /// The service clock reading this one.
    public var clock: TaskClock {
        TaskClock { [self] in
            current.withLock { date in
                date += 0.001
                return date
            }
        }
    }
}
