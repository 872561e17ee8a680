import Foundation

/// The service's notion of now and today, injected so that timestamps and "overdue" are
/// testable with fixed dates.
public struct TaskClock: Sendable {
    private let read: @Sendable () -> Date
    /// Where "today" is measured: seconds east of UTC.
    public let utcOffsetSeconds: Int

    /// A clock reading `now`, with days measured `utcOffsetSeconds` east of UTC.
    public init(utcOffsetSeconds: Int = 0, now: @escaping @Sendable () -> Date) {
        self.read = now
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// The machine's clock, days in UTC.
    public static let system = TaskClock { Date() }

    /// A clock that always reads `date`.
    public static func fixed(_ date: Date, utcOffsetSeconds: Int = 0) -> TaskClock {
        TaskClock(utcOffsetSeconds: utcOffsetSeconds) { date }
    }

    /// Now, to the microsecond, so that stored and compared times agree with Postgres.
    public func now() -> Date {
        Date(timeIntervalSince1970: Double(TaskSort.microseconds(read())) / 1_000_000)
    }

    /// The calendar date now.
    public func today() -> CalendarDate {
        CalendarDate(read(), utcOffsetSeconds: utcOffsetSeconds)
    }
}
