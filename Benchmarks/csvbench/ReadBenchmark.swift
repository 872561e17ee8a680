import CSVImport
import Foundation

/// Times full reads of one CSV file and prints rows/s and MB/s, by the wall clock and by the
/// process's CPU time (the fairer figure when other work shares the cores).
struct ReadBenchmark {
    let path: String
    let size: Int

    /// Reads the whole file, calling `use` on every record, and prints the throughput.
    func measure(_ name: String, _ use: (CSVRecord) -> Int) throws {
        let started = ContinuousClock.now
        let startedCPU = Self.cpuSeconds()
        let reader = try CSVReader(path: path)
        var records = 0
        var checksum = 0
        while let record = try reader.next() {
            records += 1
            checksum &+= use(record)
        }
        let elapsed = started.duration(to: .now)
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let cpu = Self.cpuSeconds() - startedCPU
        print("  \(name) (\(records) records, checksum \(checksum)):")
        for (clock, seconds) in [("wall", wall), ("cpu ", cpu)] {
            print(
                "    \(clock) \(String(format: "%.3f", seconds)) s, \(Int(Double(records) / seconds)) rows/s, "
                    + "\(String(format: "%.0f", Double(size) / seconds / 1_000_000)) MB/s")
        }
    }

    /// CPU time this process has used, in seconds.
    private static func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Three rounds of: records with fields left as bytes, then every field made a `String`.
    func run() throws {
        for round in 1...3 {
            print("round \(round)")
            try measure("records, fields left as bytes") { $0.count }
            try measure("records, every field made a String") { record in
                record.fields.reduce(0) { $0 &+ $1.utf8.count }
            }
        }
    }
}
