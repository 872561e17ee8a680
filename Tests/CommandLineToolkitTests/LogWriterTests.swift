@testable import CommandLineToolkit
import Foundation
import TaskbaseTestSupport
import Testing

@Suite("Batched log lines")
struct LogWriterTests {
    @Test("lines wait for the batch, then reach the descriptor whole and in order")
    func batchesInOrder() {
        let pipe = TestPipe()
        let log = LogWriter(fileDescriptor: pipe.write, delay: .seconds(3_600))
        for number in 1...100 { log.write("line \(number)\n") }
        #expect(pipe.available() == "", "nothing is written before the batch is due")
        log.flush()
        #expect(pipe.available() == (1...100).map { "line \($0)\n" }.joined())
    }

    @Test("a waiting line is written once the delay has passed, without a flush")
    func delayWrites() async throws {
        let pipe = TestPipe()
        let log = LogWriter(fileDescriptor: pipe.write, delay: .milliseconds(20))
        log.write("one\n")
        var seen = ""
        let deadline = ContinuousClock.now + .seconds(10)
        while seen.isEmpty && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            seen += pipe.available()
        }
        #expect(seen == "one\n")
    }

    @Test("a full batch is written at once")
    func capacityWrites() {
        let pipe = TestPipe()
        let log = LogWriter(fileDescriptor: pipe.write, delay: .seconds(3_600), capacity: 16)
        log.write("short\n")
        #expect(pipe.available() == "")
        log.write("long enough to fill it\n")
        #expect(pipe.available() == "short\nlong enough to fill it\n")
    }

    @Test("shared with other processes, a batch goes out in writes of whole lines of at most the limit; a longer line alone")
    func linesWholePerWrite() throws {
        // A SOCK_SEQPACKET pair keeps each write a record of its own: what one system call wrote.
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0)
        defer { for end in ends { close(end) } }
        let log = LogWriter(fileDescriptor: ends[1], delay: .seconds(3_600), writeLimit: 64)
        let lines = (1...40).map { "line \($0) \(String(repeating: "x", count: $0 % 7))\n" } + [String(repeating: "y", count: 150) + "\n", "tail\n"]
        for line in lines { log.write(line) }
        log.flush()
        var records: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            var ready = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 0) > 0 else { break }
            let count = read(ends[0], &buffer, buffer.count)
            guard count > 0 else { break }
            records.append(String(decoding: buffer[..<count], as: UTF8.self))
        }
        #expect(records.joined() == lines.joined(), "every byte, in order")
        #expect(records.count > 3)
        for record in records {
            #expect(record.hasSuffix("\n"), "whole lines: \(record)")
            #expect(record.utf8.count <= 64 || record.dropLast().contains("\n") == false, "at most the limit, or one long line: \(record)")
        }
        #expect(records.contains(String(repeating: "y", count: 150) + "\n"), "the long line alone")
        // Without a limit the batch is one write.
        let whole = LogWriter(fileDescriptor: ends[1], delay: .seconds(3_600))
        for line in lines { whole.write(line) }
        whole.flush()
        let count = read(ends[0], &buffer, buffer.count)
        #expect(count == lines.joined().utf8.count)
    }

    @Test("pieces: whole lines up to the limit, a long line alone, the last line even without its newline")
    func pieces() {
        func cut(_ text: String, _ limit: Int) -> [String] {
            let bytes = Array(text.utf8)
            return LogWriter.pieces(of: bytes, limit: limit).map { String(decoding: bytes[$0], as: UTF8.self) }
        }
        #expect(cut("a\nb\nc\n", 4) == ["a\nb\n", "c\n"])
        #expect(cut("a\nb\nc\n", 100) == ["a\nb\nc\n"])
        #expect(cut("a\nlonger line\nb\n", 4) == ["a\n", "longer line\n", "b\n"])
        #expect(cut("longer line\n", 4) == ["longer line\n"])
        #expect(cut("ab\ncd", 3) == ["ab\n", "cd"])
        #expect(cut("", 4) == [])
    }
}
