/// Lets callers run one at a time, in the order they came: an async mutex for work that
/// suspends (a connection lent to one caller at a time, a log only one test may read). Each
/// `take()` is followed by one `pass()`, on every path.
public actor OneAtATime {
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// Waits for the turn.
    public func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives the turn to the next caller in line.
    public func pass() {
        if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
    }
}
