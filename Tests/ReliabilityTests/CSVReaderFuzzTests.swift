import CSVImport
import Foundation
import Testing

@Suite("CSVReader under fuzzing", .timeLimit(.minutes(3)))
struct CSVReaderFuzzTests {
    /// What a reader produced for one input: records and errors, in order.
    enum Event: Equatable {
        case record(line: Int, fields: [String])
        case error(CSVError)
    }

    /// Bytes that matter to a CSV reader, weighted towards trouble.
    static let interesting: [[UInt8]] = [
        Array("a".utf8), Array("xyz".utf8), [UInt8(ascii: ",")], [UInt8(ascii: ";")], [UInt8(ascii: "\t")],
        [UInt8(ascii: "\"")], [UInt8(ascii: "\"")], [UInt8(ascii: "\n")], [UInt8(ascii: "\r")], Array("\r\n".utf8),
        [UInt8(ascii: " ")], [0x00], [0xFF], [0xC3], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xE2, 0x82], [0xF0, 0x9F, 0x98, 0x80],
        [0xED, 0xA0, 0x80], [0xEF, 0xBB, 0xBF], [0x80],
    ]

    static let chunkSizes = [1, 2, 3, 7, 16, 4096]

    /// Reads `input` to the end (or to a fatal error) with `options`; nil when the reader
    /// keeps producing events without advancing.
    static func read(_ input: [UInt8], _ options: CSVReader.Options) -> [Event]? {
        let reader = CSVReader(source: MemoryByteSource(input), options: options)
        var events: [Event] = []
        while events.count <= input.count + 2 {
            do {
                guard let record = try reader.next() else { return events }
                events.append(.record(line: record.line, fields: record.fields))
            } catch {
                events.append(.error(error))
                if !error.isRecoverable { return events }
            }
        }
        return nil
    }

    /// A well-formed CSV document: quoted fields with delimiters, quotes and line breaks.
    static func document(_ random: inout FuzzRandom, delimiter: UInt8) -> [UInt8] {
        var bytes: [UInt8] = []
        let columns = Int.random(in: 1...4, using: &random)
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            for column in 0..<columns {
                if column > 0 { bytes.append(delimiter) }
                var field: [UInt8] = []
                for _ in 0..<Int.random(in: 0...6, using: &random) { field += interesting.randomElement(using: &random)! }
                if field.contains(where: { [delimiter, UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains($0) }) {
                    bytes.append(UInt8(ascii: "\""))
                    for byte in field { bytes += byte == UInt8(ascii: "\"") ? [byte, byte] : [byte] }
                    bytes.append(UInt8(ascii: "\""))
                } else {
                    bytes += field
                }
            }
            bytes += Bool.random(using: &random) ? Array("\r\n".utf8) : [UInt8(ascii: "\n")]
        }
        return bytes
    }

    /// `bytes` with a few random edits: a byte replaced, inserted, deleted, a slice repeated, a cut.
    static func mutate(_ bytes: [UInt8], _ random: inout FuzzRandom) -> [UInt8] {
        var result = bytes
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let index = result.isEmpty ? 0 : Int.random(in: 0..<result.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where !result.isEmpty: result[index] = UInt8.random(in: 0...255, using: &random)
            case 1: result.insert(contentsOf: interesting.randomElement(using: &random)!, at: index)
            case 2 where !result.isEmpty: result.remove(at: index)
            case 3 where !result.isEmpty: result.insert(contentsOf: result[index..<min(result.count, index + 8)], at: index)
            default: result = Array(result.prefix(index))
            }
        }
        return result
    }

    /// Random bytes: either any byte or the interesting ones.
    static func noise(_ random: inout FuzzRandom) -> [UInt8] {
        let count = Int.random(in: 0...200, using: &random)
        if Bool.random(using: &random) { return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        return (0..<count).flatMap { _ in interesting.randomElement(using: &random)! }
    }

    @Test("seeded random input for 5 s: no crash, the same result at every chunk size, every error with a line and column")
    func fuzz() async throws {
        let seed = ProcessInfo.processInfo.environment["TASKBASE_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        // The work runs on a thread of its own: five CPU-bound seconds on Swift's cooperative
        // pool (two threads here) would stall every other test's timing.
        let run = await withCheckedContinuation { (continuation: CheckedContinuation<FuzzRun, Never>) in
            Thread { continuation.resume(returning: Self.fuzz(seed: seed, for: .seconds(5))) }.start()
        }
        #expect(run.failure == nil, "seed \(seed): \(run.failure ?? "")")
        // Under a loaded machine the 5 s hold few inputs; the checks are what counts.
        #expect(run.inputs > 0, "seed \(seed): no input in 5 s")
        #expect(run.inputs < 50 || run.errors > 0, "seed \(seed): \(run.inputs) inputs and not one error: the generator is too tame")
    }

    /// What a fuzz run did, and the first thing it found wrong.
    struct FuzzRun: Sendable {
        var inputs = 0
        var errors = 0
        var failure: String?
    }

    /// Generates and checks inputs until `duration` has passed or a check fails.
    static func fuzz(seed: UInt64, for duration: Duration) -> FuzzRun {
        var random = FuzzRandom(seed: seed)
        let deadline = ContinuousClock.now + duration
        var run = FuzzRun()
        while ContinuousClock.now < deadline {
            let delimiter = CSVDelimiter.allCases.randomElement(using: &random)!
            var options = CSVReader.Options(
                delimiter: delimiter, maxFieldBytes: Bool.random(using: &random) ? 1 << 20 : Int.random(in: 1...64, using: &random),
                skipsBlankLines: Bool.random(using: &random), requiresSameFieldCount: Bool.random(using: &random))
            // Mostly UTF-8; sometimes through the transcoder, whose output must not depend on chunk sizes either.
            options.encoding = [TextEncoding.utf8, .utf8, .utf8, .windows1252, .latin1, .utf16].randomElement(using: &random)!
            options.skipsEmptyRecords = Bool.random(using: &random)
            let delimiterByte = UInt8(ascii: Unicode.Scalar(delimiter.rawValue)!)
            let input: [UInt8]
            switch Int.random(in: 0..<3, using: &random) {
            case 0: input = noise(&random)
            case 1: input = document(&random, delimiter: delimiterByte)
            default: input = mutate(document(&random, delimiter: delimiterByte), &random)
            }
            guard let reference = read(input, options) else {
                run.failure = "input \(input): the reader keeps producing events, it does not advance"
                return run
            }
            let lineBreaks = input.count(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") })
            for case .error(let error) in reference {
                run.errors += 1
                // Offsets are the UTF-8 text's: up to three bytes for one byte of Windows-1252.
                let textBytes = options.encoding == .utf8 ? input.count : input.count * 3
                guard error.line >= 1, error.line <= lineBreaks + 1, error.character >= 1, (0...textBytes).contains(error.byteOffset) else {
                    run.failure = "input \(input): error without a sound place: \(error) (offset \(error.byteOffset))"
                    return run
                }
            }
            for chunkSize in chunkSizes {
                options.chunkSize = chunkSize
                let events = read(input, options)
                guard events == reference else {
                    run.failure = "input \(input): chunk size \(chunkSize) reads \(String(describing: events)), 64 KiB reads \(reference)"
                    return run
                }
            }
            run.inputs += 1
        }
        return run
    }
}
