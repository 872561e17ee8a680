import CommandLineToolkit
import Testing

@Suite("Text tables")
struct TextTableTests {
    @Test("columns align under their headers, numbers to the right, no trailing spaces")
    func alignment() {
        var table = TextTable(columns: [.init("KEY"), .init("TITLE"), .init("VERSION", alignment: .right)])
        table.append(["CORE-1", "Fix the build", "3"])
        table.append(["CORE-12", "Ship", "12"])
        #expect(
            table.render() == """
                KEY      TITLE          VERSION
                CORE-1   Fix the build        3
                CORE-12  Ship                12

                """)
    }

    @Test("wide characters count two columns, combining marks none")
    func unicodeWidth() {
        var table = TextTable(headers: ["A", "B"])
        table.append(["日本", "x"])
        table.append(["🚀", "y"])
        table.append(["e\u{301}", "z"])
        #expect(table.render() == "A     B\n日本  x\n🚀    y\ne\u{301}     z\n")
        #expect(DisplayWidth.measure("❤️") == 2)
        #expect(DisplayWidth.measure("한국어") == 6)
    }

    @Test("long cells are cut with an ellipsis; line breaks become spaces, escape sequences show escaped")
    func truncationAndControls() {
        var table = TextTable(columns: [.init("TITLE", maxWidth: 8), .init("NOTES")])
        table.append(["A very long title", "line one\nline two\u{1B}[31m"])
        #expect(table.render() == "TITLE     NOTES\nA very …  line one line two\\x1B[31m\n")
    }
}
