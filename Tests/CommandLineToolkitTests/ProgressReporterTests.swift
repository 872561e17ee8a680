import CommandLineToolkit
import Foundation
import Testing

@Suite("Progress reporting")
struct ProgressReporterTests {
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds = 100.0
        func advance(_ by: Double) { lock.withLock { seconds += by } }
        var now: @Sendable () -> Double { { self.lock.withLock { self.seconds } } }
    }

    @Test("a progress line shows count, rate and percent")
    func line() {
        #expect(ProgressLine.text(count: 1_234_567, unit: "rows", elapsed: 2, fraction: 0.426) == "1,234,567 rows · 617,284 rows/s · 42%")
        #expect(ProgressLine.text(count: 5, unit: "rows", elapsed: 0, fraction: nil) == "5 rows")
        #expect(ProgressLine.grouped(-1000) == "-1,000")
    }

    @Test("a count says its noun in the singular for one only")
    func counted() {
        #expect([0, 1, 2, 1_234].map { Counted.phrase($0, "task") } == ["0 tasks", "1 task", "2 tasks", "1,234 tasks"])
    }

    @Test("nothing is drawn before the first interval, then at most once per interval; finish erases the line")
    func rateLimited() {
        let clock = Clock(), output = OutputCapture()
        let reporter = ProgressReporter(isEnabled: true, minimumInterval: 1, output: output.writer, now: clock.now)
        reporter.update(count: 5)
        clock.advance(1)
        reporter.update(count: 10)
        reporter.update(count: 20)
        clock.advance(1)
        reporter.update(count: 30, fraction: 0.5)
        reporter.finish()
        #expect(output.text == "\r\u{1B}[K10 rows · 10 rows/s\r\u{1B}[K30 rows · 15 rows/s · 50%\r\u{1B}[K")
    }

    @Test("a disabled reporter draws nothing")
    func disabled() {
        let output = OutputCapture()
        let reporter = ProgressReporter(isEnabled: false, output: output.writer)
        reporter.update(count: 1)
        reporter.finish()
        #expect(output.text.isEmpty)
    }
}
