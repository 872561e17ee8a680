import CSVImport
import Testing

@Suite("Errors carry line, column (field) and character")
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
        #expect(error.kind == .unterminatedQuote(openedAtLine: 3, openedAtCharacter: 6))
        #expect((error.line, error.character, error.field) == (3, 6, 2))
        #expect(!error.isRecoverable)
        #expect(error.description.hasPrefix("line 3, column 2: the quote opened at line 3, character 6 is never closed"))
        #expect(error.description.hasSuffix("(character 6 of line 3)"))
    }

    @Test("a stray quote in an unquoted field is reported at the quote, and reading goes on")
    func strayQuote() throws {
        let text = "a,b\nok,say \"hi\"\nnext,row\n"
        let error = try onlyError(text)
        #expect(error.kind == .strayQuote)
        #expect((error.line, error.character, error.field) == (2, 8, 2))
        #expect(error.record?.fields == ["ok", "say \"hi\""])
        #expect(error.record?.line == 2)
        let outcome = readCollectingErrors(text, chunkSize: 3)
        #expect(outcome.records == [["a", "b"], ["next", "row"]])
    }

    @Test("spaces before an opening quote make it a stray quote")
    func spaceBeforeQuote() throws {
        let error = try onlyError("a,b\n1, \"x\"\n")
        #expect(error.kind == .strayQuote)
        #expect((error.line, error.character) == (2, 4))
    }

    @Test("text after a closing quote is reported where it starts")
    func textAfterClosingQuote() throws {
        let error = try onlyError("a,b\n\"x\"y,2\n")
        #expect(error.kind == .textAfterClosingQuote)
        #expect((error.line, error.character, error.field) == (2, 4, 1))
        #expect(error.record?.fields == ["xy", "2"])
    }

    @Test("a row with too many fields names the first extra field, expected and found")
    func tooManyFields() throws {
        let text = "a,b,c\n1,2,3\n4,5,6,7,8\n9,10,11\n"
        let error = try onlyError(text)
        #expect(error.kind == .raggedRow(expected: 3, found: 5))
        #expect((error.line, error.character, error.field) == (3, 7, 4))
        #expect(error.description.contains("expected 3 fields as in the header, found 5"))
        #expect(readCollectingErrors(text).records == [["a", "b", "c"], ["1", "2", "3"], ["9", "10", "11"]])
    }

    @Test("a row with too few fields is reported where it ends")
    func tooFewFields() throws {
        let error = try onlyError("a,b,c\n\"multi\nline\",2\n")
        #expect(error.kind == .raggedRow(expected: 3, found: 2))
        #expect((error.line, error.character) == (3, 8))
        #expect(error.record?.line == 2)
        let atEnd = try onlyError("a,b,c\n1,2")
        #expect((atEnd.line, atEnd.character) == (2, 4))
    }

    @Test("ragged rows are allowed when the field count is not enforced")
    func raggedAllowed() throws {
        let options = CSVReader.Options(requiresSameFieldCount: false)
        #expect(try readFields("a,b\n1\n1,2,3\n", options: options) == [["a", "b"], ["1"], ["1", "2", "3"]])
    }

    /// The bytes an `undecodable` error names.
    private func undecodableBytes(_ error: CSVError) -> [UInt8]? {
        guard case .undecodable(let bytes, _, _, _) = error.kind else { return nil }
        return bytes
    }

    @Test("invalid UTF-8 is reported at its line, field, character and byte offset, with the encoding it looks like")
    func invalidUTF8() throws {
        // "é" is two bytes, so the Latin-1 byte 0xE9 after "né,caf" is character 7 of line 2.
        let bytes = Array("a,b\nné,caf".utf8) + [0xE9] + Array("\n".utf8)
        let error = try onlyError(bytes)
        #expect(error.kind == .undecodable(bytes: [0xE9], encoding: .utf8, fileOffset: 11, looksLike: .windows1252))
        #expect((error.line, error.character, error.field) == (2, 7, 2))
        #expect(error.byteOffset == 11)
        #expect(error.isRecoverable)
        #expect(error.record?.fields == ["né", "caf\u{FFFD}"])
        #expect(
            error.description
                == "line 2, column 2: byte 0xE9 is not valid UTF-8 (at byte offset 11 of the file); the file looks like "
                + "Windows-1252: read it with --encoding windows-1252, or save it as UTF-8 (character 7 of line 2)")
    }

    @Test("a UTF-8 sequence cut off by the end of the input is invalid")
    func truncatedUTF8() throws {
        let error = try onlyError(Array("a\nb".utf8) + [0xE2, 0x82])
        #expect(undecodableBytes(error) == [0xE2, 0x82])
        #expect((error.line, error.character) == (2, 2))
    }

    @Test("overlong forms and surrogates are not UTF-8")
    func overlongAndSurrogates() throws {
        #expect(undecodableBytes(try onlyError([0x61, 0xC0, 0xAF])) == [0xC0])
        #expect(undecodableBytes(try onlyError([0x61, 0xED, 0xA0, 0x80])) == [0xED])
        #expect(undecodableBytes(try onlyError([0x61, 0xF4, 0x90, 0x80, 0x80])) == [0xF4])
        #expect(undecodableBytes(try onlyError([0x80])) == [0x80])
        #expect(undecodableBytes(try onlyError([0x61, 0xE2, 0x82, 0x61])) == [0xE2, 0x82])
    }

    @Test("bytes that are not UTF-8 spoil only their record: the records before and after are read")
    func invalidUTF8SpoilsOneRecord() {
        let bytes = Array("a,b\n1,2\nx".utf8) + [0xFF, 0xFE] + Array(",\"q\n".utf8) + [0x80] + Array("\"\n3,4\n".utf8) + [0xC3]
        for chunkSize in tinyChunkSizes + [64 * 1024] {
            let outcome = readCollectingErrors(bytes, chunkSize: chunkSize)
            #expect(outcome.records == [["a", "b"], ["1", "2"], ["3", "4"]], "chunk size \(chunkSize)")
            #expect(outcome.errors.map(\.line) == [3, 6], "chunk size \(chunkSize)")
            #expect(outcome.errors.map(\.byteOffset) == [9, 22], "chunk size \(chunkSize)")
            #expect(outcome.errors.first?.record?.fields == ["x\u{FFFD}\u{FFFD}", "q\n\u{FFFD}"], "chunk size \(chunkSize)")
            #expect(outcome.errors.last?.record?.fields == ["\u{FFFD}"], "chunk size \(chunkSize)")
        }
    }

    @Test("a file whose bytes are mostly NULs beside letters is said to look like UTF-16")
    func looksLikeUTF16() throws {
        let error = try onlyError(Array("Title\r\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        #expect(error.kind == .wrongEncoding(reading: .utf8, looksLike: .utf16LE))
        #expect(!error.isRecoverable)
        #expect(error.problem.contains("read it with --encoding utf-16"))
        let bigEndian = try onlyError(Array("Title,Notes\n".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
        #expect(bigEndian.kind == .wrongEncoding(reading: .utf8, looksLike: .utf16BE))
    }

    @Test("a field over the size limit is reported where the field starts")
    func fieldTooLarge() throws {
        let options = CSVReader.Options(maxFieldBytes: 8)
        let error = try onlyError("a,b\nok,\"0123\n45678\"\n", options: options)
        #expect(error.kind == .fieldTooLarge(limit: 8))
        #expect((error.line, error.character, error.field) == (2, 4, 2))
        #expect(!error.isRecoverable)
        let unquoted = try onlyError("a,b\nok,xx012345678\n", options: options)
        #expect((unquoted.line, unquoted.character) == (2, 4))
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
