import CommandLineToolkit
import SafeText
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

    @Test("for a terminal, escape sequences and invisible characters are shown escaped; otherwise fields stay exact")
    func terminalEscaping() {
        var terminal = CSVWriter.Configuration()
        terminal.escapesForTerminal = true
        let row: [String?] = ["\u{1B}]8;;http://evil\u{7}link", "invoice\u{202E}fdp.exe", "zero\u{200B}width"]
        #expect(CSVWriter.format([row], configuration: terminal) == "\\x1B]8;;http://evil\\x07link,invoice<U+202E>fdp.exe,zero<U+200B>width\r\n")
        #expect(CSVWriter.format([row]) == "\u{1B}]8;;http://evil\u{7}link,invoice\u{202E}fdp.exe,zero\u{200B}width\r\n")
    }

    @Test("formula defusing, when asked for, starts cells beginning with = + - @ with a quote and leaves the rest")
    func formulaDefusing() {
        var defusing = CSVWriter.Configuration()
        defusing.defusesFormulas = true
        let row: [String?] = ["=HYPERLINK(\"http://evil\")", "+1", "-2", "@SUM(A1)", "plain", "a=b", nil]
        #expect(CSVWriter.format([row], configuration: defusing) == "\"'=HYPERLINK(\"\"http://evil\"\")\",'+1,'-2,'@SUM(A1),plain,a=b,\r\n")
        #expect(CSVWriter.format([row]).hasPrefix("\"=HYPERLINK("))
    }
}

@Suite("Terminal text")
struct TerminalTextTests {
    @Test("ESC, OSC, C1 controls, bidi overrides and zero-width characters are shown escaped, visibly")
    func escapesVisibly() {
        #expect(TerminalText.clean("a\u{1B}[31mb\tc") == "a\\x1B[31mb c")
        #expect(TerminalText.clean("\u{1B}]0;owned\u{7}") == "\\x1B]0;owned\\x07")
        #expect(TerminalText.clean("invoice\u{202E}fdp.exe") == "invoice<U+202E>fdp.exe")
        #expect(TerminalText.clean("a\u{200B}b\u{2066}c\u{FEFF}") == "a<U+200B>b<U+2066>c<U+FEFF>")
        #expect(TerminalText.clean("c1\u{9B}31m") == "c1\\x9B31m")
        #expect(TerminalText.escape("two\nlines\r") == "two\\nlines\\r")
        #expect(TerminalText.clean("Zoë — 東京 🙂") == "Zoë — 東京 🙂")
    }
}
