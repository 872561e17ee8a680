import CSVImport
import Testing

/// What spreadsheets write beyond RFC 4180: other encodings, Excel's `sep=` line, other
/// separators, rows of empty cells.
@Suite("Encodings and Excel's dialects")
struct CSVReaderDialectTests {
    /// `text` as UTF-16 little-endian (or big-endian) bytes.
    static func utf16(_ text: String, bigEndian: Bool = false) -> [UInt8] {
        text.utf16.flatMap { unit in bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
    }

    /// Reads `bytes` at every tiny chunk size and 64 KiB, expects the same records each time,
    /// and returns them with the reader's format and empty-row count.
    func read(
        _ bytes: [UInt8], options: CSVReader.Options = .init(), sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (records: [CSVRecord], format: CSVInputFormat?, emptyRows: Int) {
        var first: ([CSVRecord], CSVInputFormat?, Int)?
        for chunkSize in [64 * 1024] + tinyChunkSizes {
            let reader = makeReader(bytes, chunkSize: chunkSize, options: options)
            var records: [CSVRecord] = []
            while let record = try reader.next() { records.append(record) }
            let result = (records, reader.format, reader.emptyRowsSkipped)
            if let first {
                #expect(first.0 == result.0 && first.1 == result.1 && first.2 == result.2, "chunk size \(chunkSize)", sourceLocation: sourceLocation)
            } else {
                first = result
            }
        }
        return try #require(first)
    }

    @Test("a first line sep=; sets the separator and is no record; lines still count it")
    func sepLine() throws {
        for text in ["sep=;\r\nTitle;Notes\r\na;b,c\r\n", "\"sep=;\"\nTitle;Notes\na;b,c\n", "SEP=;;\nTitle;Notes\na;b,c"] {
            let (records, format, _) = try read(Array(text.utf8))
            #expect(records.map(\.fields) == [["Title", "Notes"], ["a", "b,c"]], "\(text.debugDescription)")
            #expect(records.map(\.line) == [2, 3])
            #expect(format?.delimiter == .semicolon)
            #expect(format?.delimiterOrigin == .sepLine)
        }
        let withBOM = try read([0xEF, 0xBB, 0xBF] + Array("sep=\t\nA\tB\n".utf8))
        #expect(withBOM.records.map(\.fields) == [["A", "B"]])
        #expect(withBOM.format?.delimiter == .tab)
        #expect(withBOM.records.first?.byteOffset == 13)
    }

    @Test("sep= naming a separator the reader does not know is refused on line 1")
    func unsupportedSep() throws {
        let error = try #require(firstError("sep=:\na:b\n").first)
        #expect(error.kind == .unsupportedSeparator(":"))
        #expect((error.line, error.character) == (1, 5))
        #expect(!error.isRecoverable)
    }

    @Test(
        "auto detection takes the separator most frequent outside quotes on the header line",
        arguments: [
            ("Title;Notes;Due\n1;2;3\n", CSVDelimiter.semicolon), ("Title\tNotes\n1\t2\n", .tab), ("Title|Notes\n1|2\n", .pipe),
            ("\"Title, really\";Notes\n1;2\n", .semicolon), ("Title,Notes;x\n1,2;3\n", .comma), ("Title;Notes,x\n1;2,3\n", .comma),
            // Empty lines before the header, which the reader skips (the first was taken for the
            // header line, with no separator: comma).
            ("\nTitle;Notes\n1;2\n", .semicolon), ("\r\n\r\nTitle\tNotes\n1\t2\n", .tab),
        ])
    func detection(text: String, expected: CSVDelimiter) throws {
        let (records, format, _) = try read(Array(text.utf8), options: .init(detectsDelimiter: true))
        #expect(format?.delimiter == expected)
        #expect(format?.delimiterOrigin == .detected)
        #expect(records.count == 2)
    }

    @Test("a header without any of the four separators keeps the given one")
    func detectionFallsBack() throws {
        let (records, format, _) = try read(Array("Title\nOne\n".utf8), options: .init(delimiter: .semicolon, detectsDelimiter: true))
        #expect(records.map(\.fields) == [["Title"], ["One"]])
        #expect(format == CSVInputFormat(encoding: .utf8, byteOrderMark: false, delimiter: .semicolon, delimiterOrigin: .option))
    }

    @Test("Excel's Unicode Text (UTF-16LE, byte-order mark, tabs) reads with no option at all")
    func excelUnicodeText() throws {
        let text = "Title\tNotes\r\n\"Café, 日本\"\t\"two\r\nlines 😀\"\r\nPlain\t\r\n"
        let (records, format, _) = try read([0xFF, 0xFE] + Self.utf16(text), options: .init(detectsDelimiter: true))
        #expect(records.map(\.fields) == [["Title", "Notes"], ["Café, 日本", "two\r\nlines 😀"], ["Plain", ""]])
        #expect(records.map(\.line) == [1, 2, 4])
        #expect(format == CSVInputFormat(encoding: .utf16LE, byteOrderMark: true, delimiter: .tab, delimiterOrigin: .detected))
        let bigEndian = try read([0xFE, 0xFF] + Self.utf16(text, bigEndian: true), options: .init(detectsDelimiter: true))
        #expect(bigEndian.records == records)
        #expect(bigEndian.format?.encoding == .utf16BE)
        let noMark = try read(Self.utf16(text), options: .init(detectsDelimiter: true, encoding: .utf16))
        #expect(noMark.records == records)
    }

    @Test("Windows-1252 and Latin-1 read through iconv: the euro sign, accents and C1 bytes")
    func singleByteEncodings() throws {
        // 0x80 is € in Windows-1252 and U+0080 in Latin-1; 0xE9 is é in both.
        let bytes: [UInt8] = Array("sep=;\r\nTitle;Price\r\nCaf".utf8) + [0xE9] + Array(";12 ".utf8) + [0x80] + Array("\r\n".utf8)
        let cp1252 = try read(bytes, options: .init(encoding: .windows1252))
        #expect(cp1252.records.map(\.fields) == [["Title", "Price"], ["Café", "12 €"]])
        #expect(cp1252.format?.encoding == .windows1252)
        let latin1 = try read(bytes, options: .init(encoding: .latin1))
        #expect(latin1.records.last?.fields == ["Café", "12 \u{80}"])
    }

    @Test("a byte Windows-1252 leaves undefined refuses its row with the file's offset, suggesting Latin-1")
    func undefinedWindows1252Byte() {
        let bytes: [UInt8] = Array("Title\nok\nbad".utf8) + [0x81] + Array("\nfine\n".utf8)
        for chunkSize in tinyChunkSizes + [64 * 1024] {
            let outcome = readCollectingErrors(bytes, chunkSize: chunkSize, options: .init(encoding: .windows1252))
            #expect(outcome.records == [["Title"], ["ok"], ["fine"]], "chunk size \(chunkSize)")
            let error = outcome.errors.first
            #expect(error?.kind == .undecodable(bytes: [0x81], encoding: .windows1252, fileOffset: 12, looksLike: .latin1))
            #expect(error?.line == 3 && error?.character == 4)
            #expect(error?.problem.contains("read it with --encoding latin1") == true)
        }
    }

    @Test("an unpaired UTF-16 surrogate refuses its row with the file's offset; the rest reads")
    func unpairedSurrogate() {
        let bytes = [0xFF, 0xFE] + Self.utf16("A\r\nx") + [0x00, 0xD8] + Self.utf16("y\r\nz\r\n")
        for chunkSize in tinyChunkSizes + [64 * 1024] {
            let outcome = readCollectingErrors(bytes, chunkSize: chunkSize)
            #expect(outcome.records == [["A"], ["z"]], "chunk size \(chunkSize)")
            #expect(outcome.errors.map(\.line) == [2])
            #expect(outcome.errors.first?.kind == .undecodable(bytes: [0x00, 0xD8], encoding: .utf16LE, fileOffset: 10, looksLike: nil))
            #expect(outcome.errors.first?.record?.fields == ["x\u{FFFD}y"])
        }
    }

    @Test("rows whose every cell is empty are skipped and counted with blank lines, ragged or not")
    func emptyRows() throws {
        let text = "Title,Notes,Due\r\na,b,c\r\n,,\r\n\r\n\"\",,\r\nd,e,f\r\n,,\r\n,\r\n;;;\r\n"
        let options = CSVReader.Options(skipsEmptyRecords: true)
        let outcome = readCollectingErrors(text, options: options)
        #expect(outcome.records == [["Title", "Notes", "Due"], ["a", "b", "c"], ["d", "e", "f"]])
        #expect(outcome.errors.map(\.line) == [9])
        let reader = makeReader(Array(",,\r\nTitle\r\n,,,".utf8), options: options)
        #expect(try reader.next()?.fields == ["Title"])
        #expect(try reader.next() == nil)
        #expect(reader.emptyRowsSkipped == 2)
        let withoutLastLine = text.replacingOccurrences(of: ";;;\r\n", with: "")
        #expect(try read(Array(withoutLastLine.utf8), options: options).emptyRows == 5)
    }
}
