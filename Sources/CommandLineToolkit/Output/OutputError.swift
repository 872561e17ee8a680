import Foundation

/// Writing output failed, e.g. the disk is full or the reading end of a pipe went away.
public struct OutputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` of the failed write.
    public var code: Int32

    /// An error for `errno` value `code`.
    public init(code: Int32) {
        self.code = code
    }

    /// `cannot write output: No space left on device`.
    public var description: String {
        "cannot write output: \(String(cString: strerror(code)))"
    }
}

extension OutputError: ExitCodeProviding {
    /// Always `.failure`.
    public var exitCode: ExitCode { .failure }
}
