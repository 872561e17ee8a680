import CSVImport
import Foundation
import Testing

@Suite("Byte sources")
struct ByteSourceTests {
    private func temporaryFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csvimport-\(UUID().uuidString).csv")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("a file path reads like memory and knows its size")
    func filePath() throws {
        let text = "a,b\n\"x\ny\",2\n"
        let url = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try CSVReader(path: url.path, options: .init(chunkSize: 3))
        #expect(reader.totalByteCount == text.utf8.count)
        var records: [[String]] = []
        while let record = try reader.next() { records.append(record.fields) }
        #expect(records == [["a", "b"], ["x\ny", "2"]])
        #expect(reader.bytesConsumed == text.utf8.count)
    }

    @Test("a FileHandle the caller owns can be read")
    func fileHandle() throws {
        let url = try temporaryFile("h\nv\n")
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let reader = CSVReader(source: FileByteSource(fileHandle: handle))
        #expect(try reader.next()?.fields == ["h"])
        #expect(try reader.next()?.fields == ["v"])
        #expect(try reader.next() == nil)
    }

    @Test("a missing file is an open error naming the path")
    func missingFile() {
        #expect {
            _ = try CSVReader(path: "/nonexistent/tasks.csv")
        } throws: { error in
            let error = error as? ByteSourceError
            return error?.code == ENOENT && error?.description == "cannot open /nonexistent/tasks.csv: No such file or directory"
        }
    }

    @Test("a pipe has no known size and reads to its end")
    func pipe() throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data("a\n1\n".utf8))
        try pipe.fileHandleForWriting.close()
        let reader = CSVReader(source: FileByteSource(fileHandle: pipe.fileHandleForReading, name: "pipe"))
        #expect(reader.totalByteCount == nil)
        #expect(try reader.next()?.fields == ["a"])
        #expect(try reader.next()?.fields == ["1"])
        #expect(try reader.next() == nil)
    }

    @Test("a failing source ends the read with its message after the records it delivered")
    func failingSource() throws {
        let reader = CSVReader(source: FailingByteSource(text: Array("a,b\n1,2\n3,".utf8)))
        #expect(try reader.next()?.fields == ["a", "b"])
        #expect(try reader.next()?.fields == ["1", "2"])
        #expect {
            try reader.next()
        } throws: { error in
            let error = error as? CSVError
            return error?.kind == .readFailed("cannot read tasks.csv: Input/output error") && error?.line == 3
                && error?.isRecoverable == false
        }
        #expect(try reader.next() == nil)
    }
}
