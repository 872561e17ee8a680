/// One page of a task list.
public struct TaskPage: Hashable, Sendable {
    /// The tasks, in the query's order.
    public var tasks: [TaskItem]
    /// Where the next page starts; nil on the last page.
    public var nextCursor: TaskCursor?

    /// A page and where the next begins.
    public init(tasks: [TaskItem], nextCursor: TaskCursor?) {
        self.tasks = tasks
        self.nextCursor = nextCursor
    }
}
