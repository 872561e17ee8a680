/// A migration file that cannot be used as it is: a bad name, a duplicate version, a broken or
/// unknown directive. Input rejected: the file must be fixed.
public struct MigrationFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, as given to the tool.
    public var path: String
    /// The 1-based line the problem is on, when it is on one.
    public var line: Int?
    /// What is wrong and what to do.
    public var message: String

    /// A problem with `path`, at `line` if known.
    public init(path: String, line: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `path:line: message`.
    public var description: String {
        if let line { return "\(path):\(line): \(message)" }
        return "\(path): \(message)"
    }
}
