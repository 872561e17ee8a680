import CommandLineToolkit
import Testing

@Suite("CSV writing")
struct CSVWriterTests {
    @Test("plain fields are written as they are, rows end in CRLF")
    func plain() {
        #expect(CSVWriter.format([["a", "b"], ["1", "2"]]) == "a,b\r\n1,2\r\n")
    }

    @Test("delimiters, quotes, CR and LF force quotes; quotes are doubled")
    func quoting() {
        let text = CSVWriter.format([["a,b", "say \"hi\"", "line\nbreak", "cr\rhere", "plain"]])
        #expect(text == "\"a,b\",\"say \"\"hi\"\"\",\"line\nbreak\",\"cr\rhere\",plain\r\n")
    }

    @Test("leading or trailing spaces are protected by quotes")
    func spaces() {
        #expect(CSVWriter.format([[" lead", "trail ", "in side", "\ttab"]]) == "\" lead\",\"trail \",in side,\"\ttab\"\r\n")
    }

    @Test("an empty string is \"\" and a missing value is nothing")
    func emptyVersusMissing() {
        #expect(CSVWriter.format([["", nil, "x"]]) == "\"\",,x\r\n")
    }

    @Test("another delimiter and LF line endings are configurable")
    func configuration() {
        let configuration = CSVWriter.Configuration(delimiter: UInt8(ascii: ";"), lineEnding: "\n")
        #expect(CSVWriter.format([["a;b", "c,d"]], configuration: configuration) == "\"a;b\";c,d\n")
        #expect(!CSVWriter.Configuration.isValidDelimiter(UInt8(ascii: "\"")))
    }

    @Test("rows are handed to the sink in buffered chunks and all arrive after flush")
    func buffering() throws {
        let chunks = OutputCapture()
        var count = 0
        let writer = CSVWriter(configuration: .init(bufferCapacity: 16)) { bytes in
            count += 1
            chunks.writer(String(decoding: bytes, as: UTF8.self))
        }
        for index in 0..<10 { try writer.writeRow(["row", String(index)]) }
        #expect(count == 3)
        try writer.flush()
        #expect(count == 4)
        #expect(chunks.text == (0..<10).map { "row,\($0)\r\n" }.joined())
    }

    @Test("non-ASCII text passes through unchanged")
    func unicode() {
        #expect(CSVWriter.format([["Café ☕", "日本"]]) == "Café ☕,日本\r\n")
    }
}
