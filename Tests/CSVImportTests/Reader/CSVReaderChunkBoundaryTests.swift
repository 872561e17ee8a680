import CSVImport
import Testing

@Suite("Chunk boundaries")
struct CSVReaderChunkBoundaryTests {
    /// Reads `text` with every tiny chunk size and expects the same as one big chunk.
    private func expectSameAtEveryChunkSize(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = Array(text.utf8)
        let whole = try readRecords(bytes)
        for chunkSize in tinyChunkSizes {
            let chunked = try readRecords(bytes, chunkSize: chunkSize)
            #expect(chunked == whole, "chunk size \(chunkSize)", sourceLocation: sourceLocation)
        }
    }

    @Test("a quote right at a chunk boundary: opening, doubled and closing")
    func quoteAtBoundary() throws {
        // Chunk size 3 puts the doubled quote's halves in two chunks, and so on for 1...7.
        let text = "ab,\"\"\"x\"\"\",\"c\"\n\"\",\"\"\"\",d\n"
        #expect(try readFields(text, chunkSize: 3) == [["ab", "\"x\"", "c"], ["", "\"", "d"]])
        try expectSameAtEveryChunkSize(text)
    }

    @Test("a CRLF split across chunks is one line break")
    func crlfAtBoundary() throws {
        let text = "a,b\r\n\"q\r\nq\",c\r\nd,e\r\n"
        #expect(try readFields(text, chunkSize: 4) == [["a", "b"], ["q\r\nq", "c"], ["d", "e"]])
        #expect(try readRecords(Array(text.utf8), chunkSize: 4).map(\.line) == [1, 2, 4])
        try expectSameAtEveryChunkSize(text)
    }

    @Test("a multi-byte UTF-8 character split across chunks arrives whole")
    func multiByteAtBoundary() throws {
        let text = "é,日本,😀\n\"ü\nß\",€,𝄞x\n"
        #expect(try readFields(text, chunkSize: 1) == [["é", "日本", "😀"], ["ü\nß", "€", "𝄞x"]])
        try expectSameAtEveryChunkSize(text)
    }

    @Test("a BOM split over several reads is still dropped")
    func bomAtBoundary() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("a,b\n".utf8)
        let reader = CSVReader(source: MemoryByteSource(bytes, maxReadSize: 1), options: .init(chunkSize: 1))
        #expect(try reader.next()?.fields == ["a", "b"])
    }

    @Test("a source that returns fewer bytes than asked reads the same")
    func shortReads() throws {
        let text = "x,\"y\r\n\"\"z\"\"\"\r\n1,2\r\n"
        for readSize in 1...5 {
            let reader = CSVReader(source: MemoryByteSource(text, maxReadSize: readSize))
            var records: [[String]] = []
            while let record = try reader.next() { records.append(record.fields) }
            #expect(records == [["x", "y\r\n\"z\""], ["1", "2"]])
        }
    }
}
