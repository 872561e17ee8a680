import Synchronization
import TaskCore
import TaskbaseWire

/// The people tasks name (creator, last editor, assignee), remembered per team for a few
/// seconds, so that a task read over HTTP costs the database what the in-process point read
/// costs: the read itself, which checks the actor's access as always. Without it every task
/// response listed the team's members (a transaction with its own access check) and looked up
/// former members one by one. It is consulted only after the request's own authorized read of
/// that team's data succeeded, and tells the reader only the emails of users that data names,
/// so it never tells an outsider anything; a removed member gets 404 from that read at once.
/// An entry lives `ttl` at most (a changed email shows within it), and is dropped at once when
/// this process changes the team's members or deletes the team, and all of it when the token
/// doorbell rings (a user disabled, enabled or deleted by any process).
///
/// An entry holds the team's members only, whom every reader of the team sees alike. Anyone
/// else the data names (a former member) is looked up per request with that reader's own
/// rights and never kept for another: an operator sees everyone, anyone else only people sharing
/// a team with them, so a former member is an email to the one and `#id` to the other.
final class DirectoryCache: Sendable {
    private struct Entry {
        var users: [UserID: User]
        var loaded: ContinuousClock.Instant
    }

    /// The most teams held; a full cache drops expired entries, then the oldest.
    let capacity: Int
    private let entries = Mutex<[TeamKey: Entry]>([:])

    /// An empty cache of at most `capacity` teams.
    init(capacity: Int = 1_024) {
        self.capacity = capacity
    }

    /// A directory naming every user among `ids` that `actor` may see, for team `team` whose
    /// data `actor` has just been allowed to read: the team's members (loaded afresh, with
    /// `actor`'s rights, once older than `ttl`), then anyone else among `ids`, looked up as
    /// `actor` and not kept.
    func directory(
        naming ids: some Sequence<UserID>, in team: TeamKey, ttl: Duration, service: TaskService, as actor: UserRef
    ) async throws -> UserDirectory {
        let now = ContinuousClock.now
        let cached = entries.withLock { entries -> Entry? in
            guard let entry = entries[team], now - entry.loaded < ttl else { return nil }
            return entry
        }
        var directory: UserDirectory
        if let cached {
            directory = UserDirectory(users: cached.users)
        } else {
            directory = try await UserDirectory.of(team, service: service, as: actor)
            if ttl > .zero { remember(Entry(users: directory.users, loaded: now), for: team, ttl: ttl) }
        }
        try await directory.resolve(ids, using: service, as: actor)
        return directory
    }

    /// Drops what is known of `team` (its members changed, or it was deleted).
    func forget(_ team: TeamKey) {
        _ = entries.withLock { $0.removeValue(forKey: team) }
    }

    /// Drops everything (a user was disabled, enabled or deleted somewhere: the token doorbell).
    func forgetAll() {
        entries.withLock { $0 = [:] }
    }

    private func remember(_ entry: Entry, for team: TeamKey, ttl: Duration) {
        entries.withLock { entries in
            if entries[team] == nil, entries.count >= capacity {
                let now = ContinuousClock.now
                entries = entries.filter { now - $0.value.loaded < ttl }
                if entries.count >= capacity, let oldest = entries.min(by: { $0.value.loaded < $1.value.loaded }) {
                    entries.removeValue(forKey: oldest.key)
                }
            }
            entries[team] = entry
        }
    }
}
