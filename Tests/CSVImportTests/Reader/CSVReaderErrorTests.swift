import CSVImport
import Testing

@Suite("Errors carry line and column")
struct CSVReaderErrorTests {
    /// The one error every chunk size reports, checked to be identical across them.
    private func onlyError(_ text: String, options: CSVReader.Options = .init()) throws -> CSVError {
        try onlyError(Array(text.utf8), options: options)
    }

    private func onlyError(_ bytes: [UInt8], options: CSVReader.Options = .init()) throws -> CSVError {
        let errors = firstError(bytes, options: options)
        #expect(errors.count == tinyChunkSizes.count + 1, "every chunk size reports an error")
        let error = try #require(errors.last)
        for other in errors {
            #expect(other == error)
        }
        return error
    }

    @Test("an unterminated quote says where the quote opened")
    func unterminatedQuote() throws {
        let error = try onlyError("title,notes\nok,fine\nTask,\"never\nclosed, at all\n")
        #expect(error.kind == .unterminatedQuote(openedAtLine: 3, openedAtColumn: 6))
        #expect((error.line, error.column, error.field) == (3, 6, 2))
        #expect(!error.isRecoverable)
        #expect(error.description.hasPrefix("line 3, column 6 (field 2): the quote opened at line 3, column 6"))
    }

    @Test("a stray quote in an unquoted field is reported at the quote, and reading goes on")
    func strayQuote() throws {
        let text = "a,b\nok,say \"hi\"\nnext,row\n"
        let error = try onlyError(text)
        #expect(error.kind == .strayQuote)
        #expect((error.line, error.column, error.field) == (2, 8, 2))
        #expect(error.record?.fields == ["ok", "say \"hi\""])
        #expect(error.record?.line == 2)
        let outcome = readCollectingErrors(text, chunkSize: 3)
        #expect(outcome.records == [["a", "b"], ["next", "row"]])
    }

    @Test("spaces before an opening quote make it a stray quote")
    func spaceBeforeQuote() throws {
        let error = try onlyError("a,b\n1, \"x\"\n")
        #expect(error.kind == .strayQuote)
        #expect((error.line, error.column) == (2, 4))
    }

    @Test("text after a closing quote is reported where it starts")
    func textAfterClosingQuote() throws {
        let error = try onlyError("a,b\n\"x\"y,2\n")
        #expect(error.kind == .textAfterClosingQuote)
        #expect((error.line, error.column, error.field) == (2, 4, 1))
        #expect(error.record?.fields == ["xy", "2"])
    }

    @Test("a row with too many fields names the first extra field, expected and found")
    func tooManyFields() throws {
        let text = "a,b,c\n1,2,3\n4,5,6,7,8\n9,10,11\n"
        let error = try onlyError(text)
        #expect(error.kind == .raggedRow(expected: 3, found: 5))
        #expect((error.line, error.column, error.field) == (3, 7, 4))
        #expect(error.description.contains("expected 3 fields as in the header, found 5"))
        #expect(readCollectingErrors(text).records == [["a", "b", "c"], ["1", "2", "3"], ["9", "10", "11"]])
    }

    @Test("a row with too few fields is reported where it ends")
    func tooFewFields() throws {
        let error = try onlyError("a,b,c\n\"multi\nline\",2\n")
        #expect(error.kind == .raggedRow(expected: 3, found: 2))
        #expect((error.line, error.column) == (3, 8))
        #expect(error.record?.line == 2)
        let atEnd = try onlyError("a,b,c\n1,2")
        #expect((atEnd.line, atEnd.column) == (2, 4))
    }

    @Test("ragged rows are allowed when the field count is not enforced")
    func raggedAllowed() throws {
        let options = CSVReader.Options(requiresSameFieldCount: false)
        #expect(try readFields("a,b\n1\n1,2,3\n", options: options) == [["a", "b"], ["1"], ["1", "2", "3"]])
    }

    @Test("invalid UTF-8 is reported at its line and character column")
    func invalidUTF8() throws {
        // "é" is two bytes, so the Latin-1 byte 0xE9 after "né,caf" is character 7 of line 2.
        let bytes = Array("a,b\nné,caf".utf8) + [0xE9] + Array("\n".utf8)
        let error = try onlyError(bytes)
        #expect(error.kind == .invalidUTF8(byte: 0xE9))
        #expect((error.line, error.column, error.field) == (2, 7, 2))
        #expect(error.byteOffset == 11)
        #expect(error.description.contains("byte 0xE9 is not valid UTF-8"))
    }

    @Test("a UTF-8 sequence cut off by the end of the input is invalid")
    func truncatedUTF8() throws {
        let error = try onlyError(Array("a\nb".utf8) + [0xE2, 0x82])
        #expect(error.kind == .invalidUTF8(byte: 0xE2))
        #expect((error.line, error.column) == (2, 2))
    }

    @Test("overlong forms and surrogates are not UTF-8")
    func overlongAndSurrogates() throws {
        #expect(try onlyError([0x61, 0xC0, 0xAF]).kind == .invalidUTF8(byte: 0xC0))
        #expect(try onlyError([0x61, 0xED, 0xA0, 0x80]).kind == .invalidUTF8(byte: 0xED))
        #expect(try onlyError([0x61, 0xF4, 0x90, 0x80, 0x80]).kind == .invalidUTF8(byte: 0xF4))
        #expect(try onlyError([0x80]).kind == .invalidUTF8(byte: 0x80))
    }

    @Test("invalid UTF-8 after earlier good records still lets those records through")
    func recordsBeforeInvalidUTF8() {
        let outcome = readCollectingErrors(Array("a\nb\nc".utf8) + [0xFF], chunkSize: 2)
        #expect(outcome.records == [["a"], ["b"]])
        #expect(outcome.errors.map(\.line) == [3])
    }

    @Test("a field over the size limit is reported where the field starts")
    func fieldTooLarge() throws {
        let options = CSVReader.Options(maxFieldBytes: 8)
        let error = try onlyError("a,b\nok,\"0123\n45678\"\n", options: options)
        #expect(error.kind == .fieldTooLarge(limit: 8))
        #expect((error.line, error.column, error.field) == (2, 4, 2))
        #expect(!error.isRecoverable)
        let unquoted = try onlyError("a,b\nok,xx012345678\n", options: options)
        #expect((unquoted.line, unquoted.column) == (2, 4))
        #expect(try readFields("a\n12345678\n", options: options) == [["a"], ["12345678"]])
    }

    @Test("the default field limit is 1 MiB")
    func defaultFieldLimit() throws {
        let big = String(repeating: "x", count: 1 << 20)
        #expect(try readFields("a\n" + big + "\n")[1][0].utf8.count == 1 << 20)
        let error = try #require(readCollectingErrors("a\n" + big + "y\n").errors.first)
        #expect(error.kind == .fieldTooLarge(limit: 1 << 20))
    }

    @Test("after a fatal error the reader returns nothing more")
    func doneAfterFatal() throws {
        let reader = makeReader(Array("a\n\"open\n".utf8))
        _ = try reader.next()
        #expect(throws: CSVError.self) { try reader.next() }
        #expect(try reader.next() == nil)
    }
}
