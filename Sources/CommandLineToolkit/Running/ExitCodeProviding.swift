/// An error that knows which exit code it means; the runner maps any other error to `.failure`.
public protocol ExitCodeProviding {
    /// The code the program exits with when this error ends it.
    var exitCode: ExitCode { get }
}
