import CSVImport
import Testing

@Suite("Round trip")
struct CSVReaderRoundTripTests {
    /// Pieces random fields are built from: the characters that make CSV hard, and some that
    /// make UTF-8 hard.
    private static let pieces = [
        "a", "b", "z", "0", "7", " ", ",", ";", "\t", "|", "\"", "\"\"", "\n", "\r\n", "\r",
        "é", "ß", "日本", "😀", "👩‍💻", "\u{FEFF}", "x y", "\u{0301}",
    ]

    private static func randomField(using generator: inout SeededGenerator) -> String {
        let length = Int.random(in: 0...12, using: &generator)
        return (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    @Test("random fields written by an RFC 4180 writer read back identical", arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomRoundTrip(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let delimiter = CSVDelimiter.allCases.randomElement(using: &generator)!
        let columnCount = Int.random(in: 1...6, using: &generator)
        let rowCount = Int.random(in: 1...40, using: &generator)
        let records = (0..<rowCount).map { _ in
            (0..<columnCount).map { _ in Self.randomField(using: &generator) }
        }
        let writer = RFC4180Writer(
            delimiter: delimiter.rawValue.unicodeScalars.first!,
            lineBreak: ["\n", "\r\n"].randomElement(using: &generator)!)
        let document = writer.document(records, finalLineBreak: Bool.random(using: &generator))
        let options = CSVReader.Options(delimiter: delimiter, skipsBlankLines: false)
        for chunkSize in [1, 2, 3, 5, 64, 64 * 1024] {
            let read = try readFields(document, chunkSize: chunkSize, options: options)
            #expect(read == records, "seed \(seed), chunk size \(chunkSize)")
        }
    }
}
