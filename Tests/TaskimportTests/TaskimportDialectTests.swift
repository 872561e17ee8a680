import CSVImport
import Foundation
import TaskCore
import Testing

/// The files spreadsheets really write, through the built taskimport into PostgreSQL.
@Suite("taskimport reads spreadsheets' files", .serialized)
struct TaskimportDialectTests {
    /// `text` in Windows-1252 (every character of it must have a Windows-1252 byte).
    static func windows1252(_ text: String) throws -> [UInt8] {
        Array(try #require(text.data(using: .windowsCP1252)))
    }

    /// `text` as UTF-16LE with a byte-order mark: Excel's "Unicode Text".
    static func unicodeText(_ text: String) -> [UInt8] {
        [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    @Test("a Windows-1252 semicolon export with a sep=; line and trailing empty rows imports with one option")
    func europeanExcelExport() async throws {
        let fixture = try await ImportFixture.make()
        let csv = "sep=;\r\nID;Title;Notes;Category\r\nE-1;Café € budget;\"Zoë; the \"\"lead\"\"\";Fïnance\r\nE-2;Straße;;\r\n;;;\r\n;;;\r\n;;;\r\n"
        let path = try fixture.file("excel.csv", try Self.windows1252(csv))
        let result = try await fixture.importFile(path, ["--encoding", "windows-1252", "--json"])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let summary = try fixture.summary(result)
        #expect(summary["inserted"] as? Int == 2)
        #expect(summary["empty_rows_skipped"] as? Int == 3)
        #expect(summary["encoding"] as? String == "windows-1252")
        #expect(summary["delimiter"] as? String == ";")
        #expect(summary["delimiter_from"] as? String == "sep-line")
        let tasks = try await fixture.tasks()
        #expect(tasks.map(\.title) == ["Café € budget", "Straße"])
        #expect(tasks.first?.notes == "Zoë; the \"lead\"")
        #expect(tasks.first?.category == "Fïnance")

        let text = try await fixture.importFile(path, ["--encoding", "windows-1252"])
        #expect(
            text.standardError.contains("read as Windows-1252, fields separated by \";\" (the file's sep= line); 3 empty rows skipped"),
            "\(text.standardError)")
    }

    @Test("the same Windows-1252 file without the option: refused naming the encoding it looks like and the option")
    func windows1252WithoutOption() async throws {
        let fixture = try await ImportFixture.make()
        let path = try fixture.file("cp1252.csv", try Self.windows1252("Title;Notes\r\nPlain;ok\r\nCafé;x\r\nAlso plain;\r\n"))
        let refused = try await fixture.importFile(path)
        #expect(refused.exitCode == 6)
        #expect(
            refused.standardError.contains(
                "line 3, column 1 (Title): byte 0xE9 is not valid UTF-8 (at byte offset 26 of the file); the file looks like Windows-1252: read it with --encoding windows-1252"
            ),
            "\(refused.standardError)")
        #expect(try await fixture.tasks().isEmpty)

        let lenient = try await fixture.importFile(path, ["--max-errors", "5", "--json"])
        #expect(lenient.exitCode == 0, "\(lenient.standardError)")
        #expect(try fixture.summary(lenient)["rejected"] as? Int == 1)
        #expect(try await fixture.tasks().map(\.title) == ["Plain", "Also plain"])
    }

    @Test("Excel's Unicode Text export (UTF-16LE, byte-order mark, tabs) imports with no option")
    func excelUnicodeText() async throws {
        let fixture = try await ImportFixture.make()
        let text = "Task ID\tTitle\tNotes\r\nU-1\t日本 launch 🚀\t\"two\r\nlines\"\r\nU-2\tÅsa's list\t\r\n\t\t\r\n"
        let result = try await fixture.importFile(try fixture.file("unicode.txt", Self.unicodeText(text)), ["--json"])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let summary = try fixture.summary(result)
        #expect(summary["encoding"] as? String == "utf-16le")
        #expect(summary["byte_order_mark"] as? Bool == true)
        #expect(summary["delimiter"] as? String == "\t")
        #expect(summary["delimiter_from"] as? String == "detected")
        #expect(summary["empty_rows_skipped"] as? Int == 1)
        let tasks = try await fixture.tasks()
        #expect(tasks.map(\.title) == ["日本 launch 🚀", "Åsa's list"])
        #expect(tasks.first?.notes == "two\nlines")
    }

    @Test("the reject file of a file with a byte-order mark starts with UTF-8's, so Excel reads its accents; of a plain file, with none")
    func rejectFileByteOrderMark() async throws {
        let fixture = try await ImportFixture.make()
        let text = "Title\tDue\r\nCafé\t2026-02-30\r\n"
        let marked = fixture.folder.appendingPathComponent("marked-rejects.csv").path
        let result = try await fixture.importFile(
            try fixture.file("unicode.txt", Self.unicodeText(text)), ["--dry-run", "--max-errors", "5", "--reject-file", marked])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: marked)))
        #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF, UInt8(ascii: "T")]), "\(bytes.prefix(8))")
        #expect(String(decoding: bytes.dropFirst(3), as: UTF8.self).contains("Café"))
        let plain = fixture.folder.appendingPathComponent("plain-rejects.csv").path
        _ = try await fixture.importFile(
            try fixture.file("plain.csv", "Title,Due\nCafé,2026-02-30\n"), ["--dry-run", "--max-errors", "5", "--reject-file", plain])
        #expect(try Data(contentsOf: URL(fileURLWithPath: plain)).first == UInt8(ascii: "T"))
    }

    @Test("a plain UTF-8 file with commas gets no 'read as' line; a semicolon file does")
    func readAsOnlyWhenNotPlain() async throws {
        let fixture = try await ImportFixture.make()
        // It said "read as fields separated by "," (detected on the header line)" for every file.
        let plain = try await fixture.importFile(try fixture.file("plain.csv", "Title,Notes\nOne,n\n"))
        #expect(
            plain.exitCode == 0 && !(plain.standardOutput + plain.standardError).contains("read as"), "\(plain.standardOutput)\(plain.standardError)")
        let semicolons = try await fixture.importFile(try fixture.file("semi.csv", "Title;Notes\nTwo;n\n"))
        #expect(
            (semicolons.standardOutput + semicolons.standardError).contains("read as fields separated by \";\" (detected on the header line)"),
            "\(semicolons.standardError)")
    }

    @Test("UTF-16 without a byte-order mark is refused naming --encoding utf-16, which then reads it")
    func utf16WithoutMark() async throws {
        let fixture = try await ImportFixture.make()
        let path = try fixture.file("nomark.csv", Array(Self.unicodeText("Title,Notes\r\nOne,x\r\n").dropFirst(2)))
        let refused = try await fixture.importFile(path)
        #expect(refused.exitCode == 6)
        #expect(refused.standardError.contains("UTF-16LE without a byte-order mark; read it with --encoding utf-16"), "\(refused.standardError)")
        let read = try await fixture.importFile(path, ["--encoding", "utf-16"])
        #expect(read.exitCode == 0, "\(read.standardError)")
        #expect(try await fixture.tasks().map(\.title) == ["One"])
    }

    @Test("with --json a refused run still prints one JSON document: the error, its line and column, nothing imported")
    func jsonOnRefusal() async throws {
        let fixture = try await ImportFixture.make()
        let bad = try await fixture.importFile(try fixture.file("bad.csv", "Title,Due Date\nFirst,2026-03-01\nSecond,2026-02-30\n"), ["--json"])
        #expect(bad.exitCode == 6)
        let document = try fixture.summary(bad)
        let error = try #require(document["error"] as? [String: Any])
        #expect(error["line"] as? Int == 3)
        #expect(error["column"] as? Int == 2)
        #expect(error["header"] as? String == "Due Date")
        #expect(error["exit_code"] as? Int == 6)
        #expect((error["message"] as? String)?.contains("not a real date") == true)
        #expect(document["inserted"] as? Int == 0)
        #expect(document["imported"] as? Bool == false)
        #expect(document["read"] as? Int == 2)
        #expect(bad.standardError.contains("nothing was imported"))

        let quote = try await fixture.importFile(try fixture.file("quote.csv", "Title\nok\n\"never closed\n"), ["--json"])
        #expect(quote.exitCode == 6)
        let quoteError = try #require(try fixture.summary(quote)["error"] as? [String: Any])
        #expect(quoteError["line"] as? Int == 3)
        #expect(quoteError["column"] as? Int == 1)
        #expect(quoteError["character"] as? Int == 1)

        let header = try await fixture.importFile(try fixture.file("header.csv", "Notes\nx\n"), ["--json"])
        let headerError = try #require(try fixture.summary(header)["error"] as? [String: Any])
        // Every key is there, null where nothing is known (they were left out): a missing
        // Title column is on line 1 but has no column, header or character.
        #expect(headerError["line"] as? Int == 1)
        for key in ["column", "header", "character"] {
            #expect(headerError.keys.contains(key) && headerError[key] is NSNull, "\(key): \(headerError)")
        }
        // The unclosed quote is in the Title column, and one row was read before it (the
        // header was null and the count 0, as if nothing had been read).
        #expect(quoteError["header"] as? String == "Title", "\(quoteError)")
        // The line names the header too, as every message names a column (it did not here).
        #expect(quote.standardError.contains("error: line 3, column 1 (Title): the quote opened at line 3"), "\(quote.standardError)")
        #expect(try fixture.summary(quote)["read"] as? Int == 1)
        // A row the reader could not split, over --max-errors: the character its reason names
        // is in `character` too (it was null).
        let ragged = try await fixture.importFile(try fixture.file("ragged.csv", "Title,Notes\nok,fine\nbad,one,two\n"), ["--json"])
        let raggedError = try #require(try fixture.summary(ragged)["error"] as? [String: Any])
        #expect(raggedError["line"] as? Int == 3 && raggedError["character"] as? Int != nil, "\(raggedError)")
        #expect(
            (raggedError["message"] as? String)?.contains("(character \(raggedError["character"] as? Int ?? -1) of line 3)") == true, "\(raggedError)"
        )
        #expect(try await fixture.tasks().isEmpty)
    }

    @Test("a field over the size limit names --max-field-size, which exists and lets it in")
    func maxFieldSize() async throws {
        let fixture = try await ImportFixture.make()
        let path = try fixture.file("big.csv", "Title,Notes\nOne,\(String(repeating: "n", count: 300))\n")
        let refused = try await fixture.importFile(path, ["--max-field-size", "100"])
        #expect(refused.exitCode == 6)
        #expect(refused.standardError.contains("line 2, column 2 (Notes): a field is longer than 100 bytes"), "\(refused.standardError)")
        #expect(refused.standardError.contains("raise the limit with --max-field-size BYTES"))
        let allowed = try await fixture.importFile(path, ["--max-field-size", "1000"])
        #expect(allowed.exitCode == 0, "\(allowed.standardError)")
    }

    @Test("a header with a second byte-order mark is shown escaped, with a hint")
    func invisibleHeader() async throws {
        let fixture = try await ImportFixture.make()
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("Title,Notes\nx,y\n".utf8)
        let result = try await fixture.importFile(try fixture.file("twice.csv", bytes))
        #expect(result.exitCode == 6)
        #expect(result.standardError.contains(#"the columns are "<U+FEFF>Title", "Notes""#), "\(result.standardError)")
        #expect(result.standardError.contains("byte-order mark"))
    }

    @Test("trimmed titles, notes' trailing white space and CR/CRLF made LF are counted in the summary")
    func normalisationsCounted() async throws {
        let fixture = try await ImportFixture.make()
        // Row 4 is decomposed (e and U+0301): composed as stored, which is no trimming.
        let csv =
            "ID,Title,Notes,Category\r\n1,  Padded  ,\"keep\r\nthis  \",  Ops \r\n2,Plain,plain,\r\n3,Tab\t,\"a\rb\",x\r\n"
            + "4,Cafe\u{301},Re\u{301}sume\u{301},Cafe\u{301}\r\n"
        let result = try await fixture.importFile(try fixture.file("norm.csv", csv), ["--json"])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let normalised = try #require(try fixture.summary(result)["normalised"] as? [String: Int])
        #expect(
            normalised == [
                "titles_trimmed": 2, "notes_trailing_white_space_removed": 1, "categories_and_external_ids_trimmed": 1,
                "line_breaks_made_lf": 2,
            ])
        let tasks = try await fixture.tasks()
        #expect(tasks.map(\.title) == ["Padded", "Plain", "Tab", "Caf\u{E9}"])
        #expect(tasks.map(\.notes) == ["keep\nthis", "plain", "a\nb", "R\u{E9}sum\u{E9}"])
        let text = try await TaskimportProcess.run(
            [try fixture.file("norm2.csv", csv), "--team", fixture.team.rawValue, "--as", fixture.owner, "--no-progress", "--dry-run"])
        #expect(
            text.standardError.contains(
                "normalised: 2 titles trimmed, 1 notes lost trailing white space, 1 categories or external ids trimmed, 2 cells had CR or CRLF line breaks made LF"
            ), "\(text.standardError)")
    }

    @Test("--help documents the encodings, sep=, empty rows, every normalisation and the exit codes of a stopped run")
    func helpSaysItOutLoud() async throws {
        let help = try await TaskimportProcess.run(["--help"]).standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in [
            "--encoding", "sep=", "--max-field-size", "empty", "trimmed", "trailing white space", "LF",
            "130/143/129 stopped by Ctrl-C/SIGTERM/SIGHUP (nothing imported)",
        ] {
            #expect(help.contains(phrase), "\(phrase)")
        }
    }
}
