import CommandLineToolkit
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
}
