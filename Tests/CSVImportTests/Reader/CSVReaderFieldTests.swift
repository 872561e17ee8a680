import CSVImport
import Testing

@Suite("Reading fields")
struct CSVReaderFieldTests {
    @Test("plain fields split on the delimiter, one record per line")
    func plainFields() throws {
        #expect(try readFields("a,b,c\n1,2,3\n") == [["a", "b", "c"], ["1", "2", "3"]])
    }

    @Test("a quoted field keeps delimiters, doubled quotes and line breaks")
    func quotedFields() throws {
        let text = "title,notes\n\"Buy milk, eggs\",\"say \"\"hi\"\"\nthen leave\"\n"
        #expect(try readFields(text) == [["title", "notes"], ["Buy milk, eggs", "say \"hi\"\nthen leave"]])
    }

    @Test("empty fields, quoted empty fields and a trailing delimiter are all empty strings")
    func emptyFields() throws {
        #expect(try readFields("a,b,c\n,\"\",\n") == [["a", "b", "c"], ["", "", ""]])
    }

    @Test("the last line may end without a line break")
    func finalLineWithoutBreak() throws {
        #expect(try readFields("a,b\n1,2") == [["a", "b"], ["1", "2"]])
        #expect(try readFields("a,b\n1,") == [["a", "b"], ["1", ""]])
        #expect(try readFields("a,b\n1,\"x\"") == [["a", "b"], ["1", "x"]])
    }

    @Test("an empty input and a BOM alone have no records")
    func emptyInput() throws {
        #expect(try readFields("").isEmpty)
        #expect(try readFields([0xEF, 0xBB, 0xBF]).isEmpty)
        #expect(try readFields("\n\n").isEmpty)
    }

    @Test("blank lines are skipped by default and read as one empty field when asked")
    func blankLines() throws {
        #expect(try readFields("a\n\n1\r\n\r\n2\n\n") == [["a"], ["1"], ["2"]])
        let keep = CSVReader.Options(skipsBlankLines: false)
        #expect(try readFields("a\n\n1\n", options: keep) == [["a"], [""], ["1"]])
    }

    @Test("each delimiter splits only on itself", arguments: CSVDelimiter.allCases)
    func delimiters(delimiter: CSVDelimiter) throws {
        let d = delimiter.rawValue
        let text = "a\(d)b,c;d\te|f\n\"x\(d)y\"\(d)z\n"
        let options = CSVReader.Options(delimiter: delimiter, requiresSameFieldCount: false)
        let records = try readFields(text, options: options)
        #expect(records[1] == ["x\(d)y", "z"])
        #expect(records[0].joined(separator: d) == "a\(d)b,c;d\te|f")
    }

    @Test("delimiter names parse from the command line")
    func delimiterArguments() {
        #expect(CSVDelimiter(argument: ";") == .semicolon)
        #expect(CSVDelimiter(argument: "TAB") == .tab)
        #expect(CSVDelimiter(argument: "\\t") == .tab)
        #expect(CSVDelimiter(argument: "pipe") == .pipe)
        #expect(CSVDelimiter(argument: "::") == nil)
    }

    @Test("fields read as bytes match their text")
    func fieldBytes() throws {
        let record = try #require(try readRecords(Array("héllo,wörld\n".utf8)).first)
        #expect(record.count == 2)
        #expect(record.withFieldBytes(1) { Array($0) } == Array("wörld".utf8))
    }
}
