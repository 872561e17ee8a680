import CSVImport
import Foundation

// csvbench [ROWS] [PATH]: generates a task CSV (1,000,000 rows by default) unless PATH exists,
// then times reading it three ways and prints rows/s. Run with `swift run -c release csvbench`.

let arguments = CommandLine.arguments
let rows = arguments.count > 1 ? Int(arguments[1]) ?? 1_000_000 : 1_000_000
let path = arguments.count > 2 ? arguments[2] : NSTemporaryDirectory() + "csvbench-\(rows).csv"

if !FileManager.default.fileExists(atPath: path) {
    let started = ContinuousClock.now
    try SampleFile.write(rows: rows, to: path)
    print("wrote \(path) in \(started.duration(to: .now))")
}
let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
print("file: \(path), \(size) bytes, \(rows) rows + header")

/// Reads the whole file, calling `use` on every record, and prints the throughput.
func measure(_ name: String, _ use: (CSVRecord) -> Int) throws {
    let started = ContinuousClock.now
    let reader = try CSVReader(path: path)
    var records = 0
    var checksum = 0
    while let record = try reader.next() {
        records += 1
        checksum &+= use(record)
    }
    let elapsed = started.duration(to: .now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = Int(Double(records) / seconds)
    let megabytes = Double(size) / seconds / 1_000_000
    print("  \(name): \(records) records in \(String(format: "%.3f", seconds)) s, "
        + "\(rate) rows/s, \(String(format: "%.0f", megabytes)) MB/s (checksum \(checksum))")
}

for run in 1...3 {
    print("run \(run)")
    try measure("records, fields left as bytes") { $0.count }
    try measure("records, every field made a String") { record in
        record.fields.reduce(0) { $0 &+ $1.utf8.count }
    }
}

var usage = rusage()
#if os(Linux)
getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
#else
getrusage(RUSAGE_SELF, &usage)
#endif
print("peak resident memory: \(usage.ru_maxrss / 1024) MiB")
