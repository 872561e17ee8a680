import Foundation

// csvbench [ROWS] [PATH]: generates a task CSV (1,000,000 rows by default) unless PATH exists,
// then times reading it and prints rows/s. Run with `swift run -c release csvbench`.

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
try ReadBenchmark(path: path, size: size).run()

var usage = rusage()
#if os(Linux)
getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
#else
getrusage(RUSAGE_SELF, &usage)
#endif
print("peak resident memory: \(usage.ru_maxrss / 1024) MiB")
