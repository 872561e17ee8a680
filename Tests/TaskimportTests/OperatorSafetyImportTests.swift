import Foundation
import Testing

/// What a careless operator or a hostile file can no longer do to taskimport.
@Suite("taskimport: careless paths and hostile files")
struct OperatorSafetyImportTests {
    static let csv = "External ID,Title\nx-1,First\nx-2,Second\n"

    @Test("a --reject-file that is the input (same path, a symbolic link, a hard link) is refused with exit 2 and the input is untouched")
    func rejectFileIsTheInput() async throws {
        let fixture = try await ImportFixture.make()
        let input = try fixture.file("input.csv", Self.csv)
        let symlink = fixture.folder.appendingPathComponent("link.csv").path
        let hardLink = fixture.folder.appendingPathComponent("hard.csv").path
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: input)
        try FileManager.default.linkItem(atPath: input, toPath: hardLink)
        for reject in [input, symlink, hardLink, fixture.folder.appendingPathComponent("./input.csv").path] {
            let run = try await fixture.importFile(input, ["--reject-file", reject])
            #expect(run.exitCode == 2, "\(reject): \(run.standardError)")
            #expect(run.standardError.contains("is the input file"), "\(run.standardError)")
            #expect(try String(contentsOfFile: input, encoding: .utf8) == Self.csv)
        }
        #expect(try await fixture.tasks().isEmpty)
    }

    @Test("a directory given as the input file is a usage error (exit 2)")
    func directoryAsInput() async throws {
        let fixture = try await ImportFixture.make()
        let run = try await fixture.importFile(fixture.folder.path)
        #expect(run.exitCode == 2, "\(run.standardError)")
        #expect(run.standardError.contains("is a directory"), "\(run.standardError)")
    }

    @Test("10,000 unknown columns give one short warning: the first few names and a count")
    func manyUnknownColumns() async throws {
        let fixture = try await ImportFixture.make()
        let extras = (1...10_000).map { "Extra \($0)" }
        let text = (["Title"] + extras).joined(separator: ",") + "\n" + (["One"] + extras.map { _ in "" }).joined(separator: ",") + "\n"
        let run = try await fixture.importFile(try fixture.file("wide.csv", text))
        #expect(run.exitCode == 0, "\(run.standardError.prefix(500))")
        let warning = try #require(run.standardError.split(separator: "\n").first { $0.contains("ignoring columns") })
        #expect(warning.count < 300, "\(warning.count) characters")
        #expect(warning.contains("\"Extra 1\", \"Extra 2\", \"Extra 3\", \"Extra 4\", \"Extra 5\" and 9995 more (10000 in all)"))
    }

    @Test("escape sequences and bidi overrides in headers and cells reach stderr escaped, never raw")
    func hostileTextEscaped() async throws {
        let fixture = try await ImportFixture.make()
        let text = "Title,\u{1B}]0;owned\u{7}Colour\u{202E}\n\"\u{1B}[2J\",x\n"
        let run = try await fixture.importFile(try fixture.file("hostile.csv", text), ["--max-errors", "5"])
        #expect(!run.standardError.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        // Header names are quoted with their invisible characters escaped as in every message
        // (TerminalText: \x1B for controls, <U+202E> for format characters), with a hint.
        #expect(run.standardError.contains(#""\x1B]0;owned\x07Colour<U+202E>""#), "\(run.standardError)")
    }

    @Test("--help shows the default of no statement timeout as none, not 0ms, and TASKBASE_STATEMENT_TIMEOUT=none is accepted")
    func helpSaysNone() async throws {
        let help = try await TaskimportProcess.run(["--help"]).standardOutput
        let flattened = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flattened.contains("(default: none; env: TASKBASE_STATEMENT_TIMEOUT)"), "\(help)")
        #expect(!flattened.contains("default: 0ms"), "\(help)")
        let fixture = try await ImportFixture.make()
        let run = try await TaskimportProcess.run(
            [try fixture.file("none.csv", "Title\nOne\n"), "--team", fixture.team.rawValue, "--as", fixture.owner, "--no-progress"],
            environment: ["TASKBASE_STATEMENT_TIMEOUT": "none"])
        #expect(run.exitCode == 0, "\(run.standardError)")
    }
}
