/// A file that could not be opened or read, with the operating system's reason.
public struct ByteSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done: `open` or `read`.
    public var operation: String
    /// The path, or a name such as `standard input`.
    public var name: String
    /// The `errno` value the operating system returned.
    public var code: Int32
    /// The operating system's text for `code`.
    public var reason: String

    /// One line: what failed, on which input, and why.
    public var description: String {
        "cannot \(operation) \(name): \(reason)"
    }
}
