import Foundation
import CSVImport
import Testing

@Suite("Line breaks, BOM and positions")
struct CSVReaderLineTests {
    let plain = "title,notes\nWrite report,\"two\nlines\"\nShip it,done\n"

    @Test("a BOM and CRLF file reads exactly like its plain twin")
    func bomAndCRLF() throws {
        let twin = [0xEF, 0xBB, 0xBF] + Array(plain.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        let expected = try readFields(plain).map { $0.map { $0.replacingOccurrences(of: "\n", with: "\r\n") } }
        for chunkSize in tinyChunkSizes + [64 * 1024] {
            #expect(try readFields(twin, chunkSize: chunkSize) == expected)
            #expect(try readRecords(twin, chunkSize: chunkSize).map(\.line) == [1, 2, 4])
        }
    }

    @Test("LF, CRLF and lone CR may be mixed in one file")
    func mixedLineBreaks() throws {
        let text = "a,b\r\n1,2\n3,4\r5,6\r\n"
        for chunkSize in tinyChunkSizes {
            #expect(try readFields(text, chunkSize: chunkSize) == [["a", "b"], ["1", "2"], ["3", "4"], ["5", "6"]])
            #expect(try readRecords(Array(text.utf8), chunkSize: chunkSize).map(\.line) == [1, 2, 3, 4])
        }
    }

    @Test("record lines count the line breaks inside quoted fields")
    func lineNumbers() throws {
        let text = "h1,h2\n\"a\nb\nc\",x\n\n\"d\r\ne\",y\nlast,z"
        let records = try readRecords(Array(text.utf8))
        #expect(records.map(\.line) == [1, 2, 6, 8])
    }

    @Test("each record knows how many bytes had been read after it")
    func byteOffsets() throws {
        let bytes = [0xEF, 0xBB, 0xBF] + Array("a,b\r\n1,2\n3,4".utf8)
        let records = try readRecords(bytes, chunkSize: 2)
        #expect(records.map(\.byteOffset) == [8, 12, 15])
        #expect(makeReader(bytes).totalByteCount == 15)
    }

    @Test("a BOM in the middle of the file is kept as text")
    func innerBOM() throws {
        let bytes = Array("a\n".utf8) + [0xEF, 0xBB, 0xBF] + Array("b\n".utf8)
        #expect(try readFields(bytes, chunkSize: 1) == [["a"], ["\u{FEFF}b"]])
    }
}
