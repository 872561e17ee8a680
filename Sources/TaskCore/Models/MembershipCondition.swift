/// What a conditional membership change (an HTTP `PUT` or `DELETE` of a member under `If-Match`
/// or `If-None-Match`) requires of the membership as it is when the change is made: nil when
/// the user is no member. The store judges it in the change's own transaction, under the lock
/// every membership change takes, so a member added or changed a moment earlier is never
/// overwritten unseen (`If-None-Match: *` adds only one who is absent).
public struct MembershipCondition: Sendable {
    /// Whether the change may be made to the membership as it is.
    public let holds: @Sendable (_ current: Member?) -> Bool

    /// The condition `holds`.
    public init(_ holds: @escaping @Sendable (_ current: Member?) -> Bool) {
        self.holds = holds
    }
}

/// A membership change refused because its `MembershipCondition` did not hold; nothing was
/// changed. `current` is the membership it was judged on (nil: no member).
public struct MembershipConditionFailed: Error, Sendable, Equatable {
    /// The membership as it was.
    public let current: Member?

    /// The refusal of a change to `current`.
    public init(current: Member?) {
        self.current = current
    }
}
