import Foundation

/// The built `toolkit-example` executable, run as a child process with pipes for its output.
struct ExampleProcess {
    struct Result {
        var exitCode: Int32
        var standardOutput: String
        var standardError: String
    }

    /// The executable sits next to the test bundle in the build folder.
    static var executableURL: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("toolkit-example")
    }

    let process = Process()
    let output = Pipe()
    let errors = Pipe()

    init(_ arguments: [String]) throws {
        process.executableURL = Self.executableURL
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Runs to the end with `arguments`.
    static func run(_ arguments: [String]) throws -> Result {
        try ExampleProcess(arguments).finish()
    }

    /// Blocks until the process printed `line` on stdout, or its stdout closed.
    func waitForLine(_ line: String) -> String {
        var seen = ""
        while !seen.contains(line + "\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        return seen
    }

    /// Waits for the exit and collects what is left of both streams.
    func finish(alreadyRead: String = "") -> Result {
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            exitCode: process.terminationStatus,
            standardOutput: alreadyRead + String(decoding: rest, as: UTF8.self),
            standardError: String(decoding: errorText, as: UTF8.self)
        )
    }
}
