import Foundation

/// The human name of a task, `CORE-42`: its team's key and its number in that team.
public struct TaskKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The team's key.
    public let team: TeamKey
    /// The per-team number, from 1, allocated without gaps.
    public let number: Int64

    /// Combines a team key and a task number.
    public init(team: TeamKey, number: Int64) {
        self.team = team
        self.number = number
    }

    /// Parses `CORE-42` (case-insensitive); anything else is a validation error on `field`.
    public init(parsing text: String, field: String = "task") throws {
        let trimmed = text.trimmingSpaces()
        guard let dash = trimmed.lastIndex(of: "-"),
            let number = Int64(trimmed[trimmed.index(after: dash)...]), number > 0,
            let team = try? TeamKey(String(trimmed[..<dash]))
        else {
            throw TaskError.validation(field: field, reason: "\(TaskError.quoting(text)) is not a task key like CORE-42")
        }
        self.init(team: team, number: number)
    }

    /// By team key, then number.
    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.team, lhs.number) < (rhs.team, rhs.number) }

    /// `CORE-42`.
    public var description: String { "\(team)-\(number)" }
}
