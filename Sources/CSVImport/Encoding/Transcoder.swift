#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a byte source in another encoding into UTF-8 as it streams, with glibc's iconv, one
/// chunk at a time: memory is one input chunk and its converted output, whatever the size.
///
/// A unit the encoding does not define (an unpaired UTF-16 surrogate, Windows-1252's five
/// unassigned bytes, a last character cut short) is not guessed at: the output gets the byte
/// 0xFF there, which is never UTF-8, so the reader refuses that record as for a bad UTF-8 byte,
/// and `nextProblem()` says what the original bytes were and where they are in the file.
final class Transcoder {
    /// An undecodable unit: its bytes and its offset in the file.
    struct Problem: Equatable {
        var fileOffset: Int
        var bytes: [UInt8]
    }

    /// What the source is in.
    let encoding: TextEncoding
    private let converter: iconv_t
    private let input: UnsafeMutablePointer<UInt8>
    private let inputCapacity: Int
    private var inputStart = 0
    private var inputEnd = 0
    private let output: UnsafeMutablePointer<UInt8>
    private let outputCapacity: Int
    private var outputStart = 0
    private var outputEnd = 0
    private var sourceEnded = false
    /// The input ends in an incomplete unit: read more before converting again.
    private var needsInput = false
    /// Offset in the file of `input[inputStart]`.
    private(set) var fileOffset: Int
    /// UTF-8 bytes handed out so far.
    private(set) var bytesProduced = 0
    private var problems: [Problem] = []
    private var problemHead = 0

    /// The byte that marks an undecodable unit in the output.
    static let marker: UInt8 = 0xFF

    /// A converter from `encoding`, given the bytes already read from the source (after any
    /// byte-order mark) and their offset in the file; nil when iconv does not know the encoding.
    init?(encoding: TextEncoding, pending: ArraySlice<UInt8>, fileOffset: Int, chunkSize: Int) {
        guard let name = encoding.iconvName else { return nil }
        let converter = iconv_open("UTF-8", name)
        guard Int(bitPattern: converter) != -1 else { return nil }
        self.converter = converter!
        self.encoding = encoding
        self.fileOffset = fileOffset
        inputCapacity = max(chunkSize, pending.count, 64)
        input = .allocate(capacity: inputCapacity)
        // At most three UTF-8 bytes per input byte (Windows-1252's euro sign), plus a marker.
        outputCapacity = inputCapacity * 3 + 4
        output = .allocate(capacity: outputCapacity)
        for byte in pending {
            input[inputEnd] = byte
            inputEnd += 1
        }
    }

    deinit {
        iconv_close(converter)
        input.deallocate()
        output.deallocate()
    }

    /// The next undecodable unit the output has marked, in order; nil when there is none.
    func nextProblem() -> Problem? {
        guard problemHead < problems.count else { return nil }
        defer {
            problemHead += 1
            if problemHead == problems.count {
                problems.removeAll(keepingCapacity: true)
                problemHead = 0
            }
        }
        return problems[problemHead]
    }

    /// Fills `buffer` with the next UTF-8 bytes, reading `source` as needed; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, from source: inout any ByteSource) throws -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        while outputStart == outputEnd {
            outputStart = 0
            outputEnd = 0
            if inputStart == inputEnd || needsInput {
                if sourceEnded {
                    guard inputStart < inputEnd else { return 0 }
                    markProblem(count: inputEnd - inputStart)
                    continue
                }
                try readInput(from: &source)
                continue
            }
            convert()
        }
        let count = min(buffer.count, outputEnd - outputStart)
        base.copyMemory(from: output + outputStart, byteCount: count)
        outputStart += count
        bytesProduced += count
        return count
    }

    /// Moves the unconverted bytes to the front and reads more after them.
    private func readInput(from source: inout any ByteSource) throws {
        let kept = inputEnd - inputStart
        if kept > 0, inputStart > 0 { input.update(from: input + inputStart, count: kept) }
        inputStart = 0
        inputEnd = kept
        let count = try source.read(into: UnsafeMutableRawBufferPointer(start: input + inputEnd, count: inputCapacity - inputEnd))
        if count == 0 { sourceEnded = true }
        inputEnd += count
        needsInput = false
    }

    /// One iconv call over the input there is, into the empty output.
    private func convert() {
        var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(input + inputStart).assumingMemoryBound(to: CChar.self)
        var inLeft = inputEnd - inputStart
        var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(output + outputEnd).assumingMemoryBound(to: CChar.self)
        var outLeft = outputCapacity - outputEnd
        let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
        let failure = errno
        let consumed = (inputEnd - inputStart) - inLeft
        inputStart += consumed
        fileOffset += consumed
        outputEnd = outputCapacity - outLeft
        guard result == -1 else { return }
        switch failure {
        case EILSEQ:
            if outputEnd < outputCapacity { markProblem(count: min(encoding.unitSize, inputEnd - inputStart)) }
        case EINVAL:
            needsInput = true
        default:
            break
        }
    }

    /// Skips `count` input bytes that decode to nothing, remembering them, and marks the spot.
    private func markProblem(count: Int) {
        problems.append(Problem(fileOffset: fileOffset, bytes: Array(UnsafeBufferPointer(start: input + inputStart, count: count))))
        inputStart += count
        fileOffset += count
        output[outputEnd] = Self.marker
        outputEnd += 1
    }
}
