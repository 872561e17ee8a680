import Foundation
import TaskCore
import TaskbaseTestSupport
import Testing

/// Every stored field against what Python's `csv` module reads from the same bytes: the edge-case
/// files in `Conformance/files` (quotes, doubled quotes, line breaks in quotes, CR/LF/CRLF, BOMs,
/// UTF-16 and Windows-1252 exports, empty rows, 64 KiB read boundaries), from a path and from
/// standard input in pieces of a few bytes. `Conformance/python_reference.py` applies the rules
/// taskimport documents (sep=, empty rows, trimming, LF), written independently. Serialized:
/// eleven imports at once would crowd the shared connection pool of the suite's process.
@Suite("taskimport conforms to Python's csv module", .serialized)
struct ConformanceTests {
    /// One file and how to read it, from `manifest.json`.
    struct Entry: Decodable, CustomTestStringConvertible {
        var file: String
        var delimiter: String?
        var encoding: String?
        var options: [String]?
        var stdinPiece: Int?

        enum CodingKeys: String, CodingKey {
            case file, delimiter, encoding, options, stdinPiece = "stdin_piece"
        }

        var testDescription: String { stdinPiece.map { "\(file), standard input in pieces of \($0)" } ?? file }
    }

    /// One task as Python reads it.
    struct Reference: Decodable, Equatable {
        var externalID: String
        var title: String
        var notes: String
        var category: String?

        enum CodingKeys: String, CodingKey {
            case externalID = "external_id", title, notes, category
        }
    }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Conformance")

    static let entries: [Entry] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")) else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: data)) ?? []
    }()

    @Test("the manifest lists the files, each read from a path and some from standard input")
    func manifest() {
        #expect(Self.entries.count >= 10)
        #expect(Self.entries.contains { $0.stdinPiece != nil })
    }

    @Test("every stored field equals what Python's csv module reads", arguments: entries)
    func conforms(_ entry: Entry) async throws {
        let path = Self.folder.appendingPathComponent("files").appendingPathComponent(entry.file).path
        let expected = try await Self.pythonReads(path, delimiter: entry.delimiter ?? ",", encoding: entry.encoding ?? "utf-8")
        #expect(!expected.isEmpty)

        let fixture = try await ImportFixture.make()
        let arguments =
            [entry.stdinPiece == nil ? path : "-", "--team", fixture.team.rawValue, "--as", fixture.owner, "--no-progress", "--json"]
            + (entry.options ?? [])
        let result: ProgramRun
        if let piece = entry.stdinPiece {
            result = try await Self.runFeedingStandardInput(arguments, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))), piece: piece)
        } else {
            result = try await TaskimportProcess.run(arguments)
        }
        #expect(result.exitCode == 0, "\(result.standardError)")
        let summary = try fixture.summary(result)
        #expect(summary["inserted"] as? Int == expected.count)
        #expect(summary["rejected"] as? Int == 0)

        let stored = try await Self.allTasks(fixture)
        #expect(stored.count == expected.count)
        let byID = Dictionary(stored.map { ($0.externalID ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        for reference in expected {
            let task = byID[reference.externalID]
            let actual = task.map { Reference(externalID: $0.externalID ?? "", title: $0.title, notes: $0.notes, category: $0.category) }
            #expect(actual == reference, "\(entry.file): \(reference.externalID)")
        }
    }

    /// What `python_reference.py` prints for `path`. Waited for without holding a thread: the
    /// whole test process shares two, and a blocked one starves every other test's waits.
    static func pythonReads(_ path: String, delimiter: String, encoding: String) async throws -> [Reference] {
        let run = try await BuiltProgram.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["python3", folder.appendingPathComponent("python_reference.py").path, path, delimiter, encoding],
            environment: ProcessInfo.processInfo.environment)
        #expect(run.exitCode == 0, "python3 could not read \(path): \(run.standardError)")
        return try JSONDecoder().decode([Reference].self, from: Data(run.standardOutput.utf8))
    }

    /// Every task of the fixture's team, however many.
    static func allTasks(_ fixture: ImportFixture) async throws -> [TaskItem] {
        var tasks: [TaskItem] = []
        var cursor: TaskCursor?
        repeat {
            let page = try await fixture.service.listTasks(in: fixture.team, TaskQuery(limit: 1000, after: cursor), as: .email(fixture.owner))
            tasks += page.tasks
            cursor = page.nextCursor
        } while cursor != nil
        return tasks
    }

    /// Runs taskimport writing `bytes` to its standard input `piece` bytes at a time, with a
    /// pause between writes so that each read returns a few bytes.
    static func runFeedingStandardInput(_ arguments: [String], bytes: [UInt8], piece: Int) async throws -> ProgramRun {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = try await ImportTestDatabase.connectionString()
        environment["TASKBASE_ACTOR"] = nil
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("taskimport-stdin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("out"), errURL = folder.appendingPathComponent("err")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let process = Process()
        process.executableURL = BuiltProgram.url("taskimport")
        process.arguments = arguments
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        // Its end is awaited, and the pauses slept, without holding a thread.
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()
        var start = 0
        while start < bytes.count {
            let end = min(start + piece, bytes.count)
            try input.fileHandleForWriting.write(contentsOf: bytes[start..<end])
            start = end
            try await Task.sleep(for: .microseconds(300))
        }
        try input.fileHandleForWriting.close()
        for await _ in exited.stream {}
        return ProgramRun(
            exitCode: process.terminationStatus, standardOutput: try String(contentsOf: outURL, encoding: .utf8),
            standardError: try String(contentsOf: errURL, encoding: .utf8))
    }
}
