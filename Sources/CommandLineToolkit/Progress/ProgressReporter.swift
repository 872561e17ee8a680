import Foundation

/// Shows how far long work has got on one redrawn line of standard error.
///
/// It draws only when enabled (in practice: stderr is a terminal and `--no-progress` was not
/// given), not before `minimumInterval` has passed (quick work shows nothing), then at most once
/// per interval; `finish()` erases the line so the summary that follows starts clean. Safe to
/// call from any task.
public final class ProgressReporter: @unchecked Sendable {
    /// What starts every drawing and the final erasure: back to the line's start, clear to its end.
    public static let eraseLine = "\r\u{1B}[K"
    /// What is counted, e.g. `rows`.
    public let unit: String
    /// Whether anything is drawn at all.
    public let isEnabled: Bool
    private let minimumInterval: Double
    private let output: @Sendable (String) -> Void
    private let now: @Sendable () -> Double
    private let lock = NSLock()
    private let startedAt: Double
    private var lastDrawnAt: Double?

    /// A reporter; `now` returns monotonic seconds and `output` receives the drawing (both for tests).
    public init(
        unit: String = "rows",
        isEnabled: Bool,
        minimumInterval: Double = 0.1,
        output: @escaping @Sendable (String) -> Void = { try? StandardStream.standardError.write($0) },
        now: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    ) {
        self.unit = unit
        self.isEnabled = isEnabled
        self.minimumInterval = minimumInterval
        self.output = output
        self.now = now
        self.startedAt = now()
    }

    /// A reporter on standard error that draws only when it is a terminal and `disabled` is false.
    public static func onStandardError(unit: String = "rows", disabled: Bool) -> ProgressReporter {
        ProgressReporter(unit: unit, isEnabled: !disabled && StandardStream.standardError.isTerminal)
    }

    /// Reports `count` units done and, when the total is known, the fraction done (0...1).
    public func update(count: Int, fraction: Double? = nil) {
        guard isEnabled else { return }
        let time = now()
        lock.lock()
        defer { lock.unlock() }
        if time - (lastDrawnAt ?? startedAt) < minimumInterval { return }
        lastDrawnAt = time
        output(Self.eraseLine + ProgressLine.text(count: count, unit: unit, elapsed: time - startedAt, fraction: fraction))
    }

    /// Erases the progress line if one was drawn.
    public func finish() {
        lock.lock()
        defer { lock.unlock() }
        guard lastDrawnAt != nil else { return }
        lastDrawnAt = nil
        output(Self.eraseLine)
    }
}
